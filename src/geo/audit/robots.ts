import { createRequire } from 'node:module';
import type robotsParser from 'robots-parser';

/**
 * robots.txt as RFC 9309 reads it, by robots-parser: the groups naming a crawler's product
 * token, else `*`; the longest matching rule, `allow` winning a tie; `*` and `$` patterns.
 * `url` is the robots.txt's own URL: it answers only for pages of that origin.
 */
// robots-parser is CommonJS whose typings declare an ES default export; tsc reads that as a
// `default` property of module.exports, which is the function itself at run time.
export const parseRobots: typeof robotsParser.default = createRequire(import.meta.url)('robots-parser');
