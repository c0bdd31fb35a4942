import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const cli = join(__dirname, '..', 'dist', 'cli.js');

/** Runs the built command line until it prints its ready line (or exits), then returns what it printed. */
function startCli(args: string[]): Promise<{ child: ChildProcess; output: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${output}`)), 15000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Account API key: .+\n/.test(output)) {
        clearTimeout(timer);
        resolve({ child, output, code: null });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ child, output, code });
    });
  });
}

describe('sandbox command line', () => {
  test('prints one line with its base URL and serves the API with the fixed key', async () => {
    const { child, output } = await startCli(['--port', '0', '--admin-key', 'cli_key', '--no-seed', '--rate-limit', '5']);
    try {
      const baseUrl = output.match(/http:\/\/127\.0\.0\.1:\d+\/api/)?.[0];
      expect(baseUrl).toBeDefined();
      expect(output).toContain('Account API key: cli_key');
      const response = await fetch(`${baseUrl}/account/get`, { headers: { authorization: 'cli_key' } });
      const body = (await response.json()) as { tariff: { rateLimit: number }; used: { bots: number } };
      expect(body.tariff.rateLimit).toBe(5);
      expect(body.used.bots).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
  });

  test('rejects a bad flag value, naming the flag', async () => {
    const { output, code } = await startCli(['--port', '0', '--timezone', 'Mars/Olympus']);
    expect(code).toBe(2);
    expect(output).toContain('--timezone');
  });
});
