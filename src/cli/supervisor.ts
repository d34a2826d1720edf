import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '../../config/env.ts';
import { migrate } from '../db/migrate.ts';
import { createLogger } from '../log.ts';
import { PACKAGE_ROOT } from '../shared/package-root.ts';
import { issueSetupLink } from '../admin/setup.ts';
import { ensureLocalServices } from './local-services.ts';
import { FRONT_DOOR_NODE_FLAGS } from './node-flags.ts';
import { withDb } from './with-db.ts';

// The entry, not this module's folder: from the compiled build this file is under dist/server.
const RADAR = join(PACKAGE_ROOT, 'src', 'cli', 'radar.js');

interface Child {
  role: string;
  /** Node's own flags, before the entry. */
  nodeFlags: readonly string[];
  args: string[];
  proc: ChildProcess | null;
  restarts: number;
}

/**
 * `radar up`: one machine's Radar. Migrates, then runs the front door and the workers as
 * separate processes, restarts one that dies, and on SIGTERM/SIGINT forwards the signal
 * and waits for every child to finish its in-flight work.
 */
export async function supervise(opts: { workers: number }): Promise<void> {
  // Validate the environment here so a bad variable stops `up` itself, naming it.
  const preliminary = loadConfig();
  const log = createLogger(preliminary.LOG_LEVEL, { role: 'supervisor' });
  const local = await ensureLocalServices(process.env, log);
  Object.assign(process.env, local.env);
  const config = loadConfig();

  try {
    const result = await migrate(config.DATABASE_URL);
    log.info({ ...result }, 'migrated');
    const setupUrl = await withDb((db) => issueSetupLink(db, config.PUBLIC_ORIGIN));
    // Plain text beside the JSON logs: this is the one line a person starting Radar must see.
    if (setupUrl)
      process.stderr.write(`\nNo admin account yet. Open this link within 24 hours to create it:\n  ${setupUrl}\n\n`);
  } catch (err) {
    await local.stop();
    throw err;
  }

  const children: Child[] = [
    { role: 'front-door', nodeFlags: FRONT_DOOR_NODE_FLAGS, args: ['serve'], proc: null, restarts: 0 },
    ...Array.from({ length: opts.workers }, (_, i) => ({
      role: `worker-${i + 1}`,
      nodeFlags: [],
      args: ['work'],
      proc: null,
      restarts: 0,
    })),
  ];
  let stopping = false;

  const start = (child: Child) => {
    const proc = spawn(process.execPath, [...child.nodeFlags, RADAR, ...child.args], {
      stdio: 'inherit',
      env: { ...process.env, RADAR_SUPERVISOR_PID: String(process.pid) },
      // Own process group: a terminal's Ctrl-C reaches only the supervisor, which then
      // forwards one SIGTERM, instead of each child also counting it as a second signal.
      detached: true,
    });
    child.proc = proc;
    proc.on('exit', (code, signal) => {
      child.proc = null;
      if (stopping) return;
      // Back off on repeated crashes so a broken config does not spin the CPU.
      const delay = Math.min(1000 * 2 ** child.restarts, 30_000);
      child.restarts++;
      log.error({ role: child.role, code, signal, restartInMs: delay }, 'child exited; restarting');
      setTimeout(() => !stopping && start(child), delay).unref();
    });
  };
  children.forEach(start);
  log.info({ pids: children.map((c) => c.proc?.pid), port: config.PORT }, 'radar is up');

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // Second signal: the operator wants out now.
        for (const c of children) c.proc?.kill('SIGKILL');
        return;
      }
      stopping = true;
      log.info({ signal }, 'stopping children');
      const exits = children.map((c) => c.proc && new Promise<void>((r) => c.proc!.once('exit', () => r())));
      for (const c of children) c.proc?.kill('SIGTERM');
      const force = setTimeout(() => {
        for (const c of children) c.proc?.kill('SIGKILL');
      }, config.SHUTDOWN_TIMEOUT_MS + 5000);
      void Promise.all(exits).then(async () => {
        clearTimeout(force);
        await local.stop();
        log.info('stopped');
        resolve();
      });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  process.exit(0);
}
