import OpenAI from 'openai';
import type { Logger } from '../../src/log.ts';
import { hashSecret } from '../../src/auth/secrets.ts';
import { newRelayKey } from '../../src/relay/keys.ts';
import {
  insertChannel,
  insertKey,
  NO_KEY_SETTINGS,
  upsertModel,
  type KeySettings,
  type NewChannel,
} from '../../src/relay/repo.ts';
import type { ModelKind } from '../../src/relay/protocol.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeUpstream, type FakeOptions, type FakeUpstream } from './fake-upstream.ts';

export interface RelayFixture {
  app: TestApp;
  fakes: FakeUpstream[];
  fake(options?: FakeOptions): Promise<FakeUpstream>;
  channel(c: Partial<NewChannel> & Pick<NewChannel, 'baseUrl' | 'models'>): Promise<string>;
  model(id: string, efforts: readonly string[], kind?: ModelKind): Promise<void>;
  key(models?: readonly string[], settings?: Partial<KeySettings>): Promise<{ id: string; key: string }>;
  client(key: string): OpenAI;
  close(): Promise<void>;
}

let channels = 0;

/**
 * A front door with the usage worker, and fake providers on demand. Channels, models and
 * keys are written with the same repository functions the CLI uses; add them before the
 * first relay call of a test file, since the relay reads its directory at most once a second.
 */
export async function relayFixture(env: Record<string, string> = {}, log?: Logger): Promise<RelayFixture> {
  const app = await startTestApp({ workers: ['usage'], env, log });
  const fakes: FakeUpstream[] = [];
  return {
    app,
    fakes,
    async fake(options = {}) {
      const f = await startFakeUpstream(options);
      fakes.push(f);
      return f;
    },
    async channel(c) {
      const { id } = await insertChannel(app.db, {
        name: `ch${++channels}`,
        apiKey: null,
        protocols: ['responses', 'chat', 'embeddings'],
        priority: 0,
        weight: 1,
        ...c,
      });
      return id;
    },
    async model(id, efforts, kind = 'chat') {
      await upsertModel(app.db, { id, efforts: [...efforts], kind, allowUnpriced: false });
    },
    async key(models = ['*'], settings = {}) {
      const key = newRelayKey();
      const { id } = await insertKey(app.db, {
        ...NO_KEY_SETTINGS,
        ...settings,
        name: 'test key',
        keyHash: hashSecret(key),
        prefix: key.slice(0, 10),
        models,
        accountId: null,
        group: 'default',
      });
      return { id, key };
    },
    client(key) {
      return new OpenAI({ apiKey: key, baseURL: `${app.url}/v1`, maxRetries: 0, timeout: 20_000 });
    },
    async close() {
      await Promise.all(fakes.map((f) => f.close()));
      await app.close();
    },
  };
}
