/** A data file the sandbox refuses to open; the message is one line naming the file and what to do. */
export class DataFileError extends Error {
	constructor(
		file: string,
		readonly problem: string,
		advice = 'pass another --data file, or move this one away to start afresh',
	) {
		super(`${file} ${problem.replace(/\s+/g, ' ')}; ${advice}. Nothing was written to it.`);
		this.name = 'DataFileError';
	}
}
