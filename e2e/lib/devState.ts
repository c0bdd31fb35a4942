/** What `npm run dev` keeps between runs (git-ignored): keys and ids of the local n8n and sandbox. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface DevState {
  /** n8n encrypts credentials with it: it must not change while the user folder lives. */
  encryptionKey: string;
  sandboxAdminKey: string;
  ownerCreated?: boolean;
  apiKey?: string;
  credentialId?: string;
}

export class DevStateFile {
  readonly file: string;
  readonly state: DevState;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, 'state.json');
    this.state = existsSync(this.file)
      ? (JSON.parse(readFileSync(this.file, 'utf8')) as DevState)
      : {
          encryptionKey: randomBytes(24).toString('base64url'),
          sandboxAdminKey: `mbb_dev_${randomBytes(18).toString('base64url')}`,
        };
    this.save();
  }

  update(change: Partial<DevState>): void {
    Object.assign(this.state, change);
    this.save();
  }

  private save(): void {
    writeFileSync(this.file, `${JSON.stringify(this.state, null, 2)}\n`, { mode: 0o600 });
  }
}
