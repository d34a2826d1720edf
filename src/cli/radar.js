#!/usr/bin/env node
// The `radar` executable. Radar is TypeScript run through tsx's loader, so there is no
// build step between a checkout and a running service.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
