import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * A CPU profile of this process's main thread over one phase of a bench (the pipeline bench's
 * pipeline, not its start-up or its floor), written where `path` says, for
 * `bench/support/top-frames.ts`. `node --cpu-prof` profiles a whole process run instead.
 */
export class MainThreadProfile {
  private readonly session = new Session();

  private constructor(private readonly path: string) {}

  static async start(path: string): Promise<MainThreadProfile> {
    const profile = new MainThreadProfile(path);
    profile.session.connect();
    await profile.session.post('Profiler.enable');
    await profile.session.post('Profiler.start');
    return profile;
  }

  async stop(): Promise<void> {
    const { profile } = await this.session.post('Profiler.stop');
    writeFileSync(this.path, JSON.stringify(profile));
    this.session.disconnect();
  }
}
