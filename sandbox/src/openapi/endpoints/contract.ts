import type { ParamSpec } from '../params';
import type { Schema } from '../schema';

/** What the contract says about one method of the API (its path, HTTP methods and scope come from the registry). */
export interface EndpointContract {
	tag: string;
	summary: string;
	/** What the method does, for the operation's description. */
	description: string;
	params: Record<string, ParamSpec>;
	/** Each entry: at least one of its groups must be given whole (e.g. `listid`, or `list`). */
	needs?: string[][][];
	/** The sandbox's note on each `needs` entry (same order) the documentation does not state; none for a documented one. */
	needsNotes?: (string | undefined)[];
	/** Parameters that cannot be given together. */
	exclusive?: [string, string][];
	/** A parameter that needs others (e.g. `column` needs `value`). */
	dependent?: Record<string, string[]>;
	/** Request headers (e.g. Idempotency-Key). */
	headers?: Record<string, ParamSpec>;
	/** Error codes beyond the common ones, by status. */
	errors?: { 403?: string[]; 409?: string[]; 422?: string[] };
	/** The 200 answer. */
	answer: Schema;
	/** Set for the sandbox's extensions, which the service's documentation does not have. */
	extension?: string;
	/** The HTTP method the sandbox takes on its own reading of the documentation (marked `x-sandbox` on that operation). */
	methodsNote?: { method: 'get' | 'post'; note: string };
	/** Rules that JSON Schema cannot state (against stored state, across entries): said in the description, with the code of their refusal (`422 <code>`). */
	rules?: string;
}
