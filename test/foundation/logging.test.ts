import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFrontDoor, type FrontDoor } from '../../src/front-door.ts';
import { createAccount, createCredential, createSite } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { testServices, type TestServices } from '../helpers/services.ts';
import { capturingLogger } from '../helpers/log-capture.ts';

const lines: any[] = [];
let services: TestServices;
let door: FrontDoor;
let url: string;

before(async () => {
  services = await testServices();
  door = await startFrontDoor(services.config, capturingLogger(lines));
  url = `http://127.0.0.1:${door.port}`;
  (door.app.config as { PUBLIC_ORIGIN: string }).PUBLIC_ORIGIN = url;
});
after(async () => {
  await door.close();
  await services.cleanup();
});

test('request log lines carry the request id, site and credential ids, and never a secret', async () => {
  const owner = await createAccount(services.db);
  const site = await createSite(url, owner);
  const secret = await createCredential(url, owner, site, 'read', ['sites:read']);
  lines.length = 0;
  const r = await call(url, 'GET', `/api/v1/sites/${site}`, {
    bearer: secret,
    headers: { 'x-request-id': 'trace-42' },
  });
  assert.equal(r.status, 200);
  const line = lines.find((l) => l.reqId === 'trace-42' && l.msg === 'request');
  assert.ok(line, JSON.stringify(lines));
  assert.equal(line.siteId, site);
  assert.match(line.credentialId, /^[0-9a-f-]{36}$/);
  assert.equal(line.status, 200);
  const everything = JSON.stringify(lines);
  assert.ok(!everything.includes(secret), 'the credential secret is never logged');
  assert.ok(!everything.includes(owner.session), 'the session token is never logged');
});
