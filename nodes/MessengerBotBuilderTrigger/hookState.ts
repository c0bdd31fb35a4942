import type { IDataObject } from 'n8n-workflow';

/**
 * What the node remembers about its hook, in the node's static data: n8n persists it with the
 * workflow, so every process (main, webhook, worker in queue mode) reads the same values.
 */
export interface HookState {
	hookId?: string;
	/** The signing secret, shown by the service only once, at creation. */
	secret?: string;
	/** Or, for a hook whose deliveries carry only Standard Webhooks `v1a` (Ed25519) signatures, its public key `whpk_…`. */
	publicKey?: string;
	/** The address and kinds the hook was made with, to notice when the node's settings changed. */
	url?: string;
	events?: string[];
}

export function readHookState(staticData: IDataObject): HookState {
	return staticData as HookState;
}

export function rememberHook(
	staticData: IDataObject,
	hook: Required<Pick<HookState, 'hookId' | 'url' | 'events'>> & Pick<HookState, 'secret' | 'publicKey'>,
): void {
	for (const field of ['secret', 'publicKey']) delete staticData[field];
	Object.assign(staticData, Object.fromEntries(Object.entries(hook).filter(([, value]) => value !== undefined)));
}

export function forgetHook(staticData: IDataObject): void {
	for (const field of ['hookId', 'secret', 'publicKey', 'url', 'events']) delete staticData[field];
}
