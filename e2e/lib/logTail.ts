/** Keeps the last lines a process printed, and writes everything to a log file for later reading. */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';

export class LogTail {
	private readonly lines: string[] = [];
	private partial = '';
	private readonly file: WriteStream;
	private readonly listeners = new Set<(line: string) => void>();
	readonly logFile: string;
	private readonly keep: number;

	constructor(logFile: string, keep = 5000) {
		this.logFile = logFile;
		this.keep = keep;
		this.file = createWriteStream(logFile, { flags: 'a' });
	}

	attach(stream: Readable): void {
		stream.setEncoding('utf8');
		stream.on('data', (chunk: string) => this.append(chunk));
	}

	/** Calls `listener` for every complete line from now on; returns a function that stops it. */
	onLine(listener: (line: string) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Every kept line that contains `text`. */
	grep(text: string): string[] {
		return this.lines.filter((line) => line.includes(text));
	}

	/** The last `count` lines, without n8n's database migration chatter. */
	tail(count = 60): string {
		const last = this.partial ? [...this.lines, this.partial] : this.lines;
		return last
			.filter((line) => !/^(Starting|Finished) migration /.test(line))
			.slice(-count)
			.join('\n');
	}

	close(): void {
		this.file.end();
	}

	private append(chunk: string): void {
		this.file.write(chunk);
		const parts = (this.partial + chunk).split('\n');
		this.partial = parts.pop() ?? '';
		for (const line of parts) {
			this.lines.push(line);
			for (const listener of this.listeners) listener(line);
		}
		if (this.lines.length > this.keep) this.lines.splice(0, this.lines.length - this.keep);
	}
}
