/** Filled in by esbuild (`define`) with the shared vectors, the official cases and the hook's options. */
declare const __VECTORS__: Array<{
	name: string;
	verifier: Record<string, unknown>;
	request: { headers: Record<string, string>; body: string };
}>;
declare const __OFFICIAL_CASES__: Array<{
	name: string;
	secret: string;
	now: number;
	headers: Record<string, string>;
	payload: string;
}>;
declare const __HOOK_OPTIONS__: { secrets?: string[]; publicKeys?: string[]; audience?: string[] };

export const VECTORS = __VECTORS__;
export const OFFICIAL_CASES = __OFFICIAL_CASES__;
export const HOOK_OPTIONS = __HOOK_OPTIONS__;
