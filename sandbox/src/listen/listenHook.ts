import { createHmac } from 'node:crypto';
import { HOOK_SECRET_PREFIX } from '@messenger-bot-builder/receiver';
import { ListenError, type SandboxClient } from './sandboxClient';

interface HookView {
	id: string;
	name: string;
	url: string;
	events: string[];
	disabled?: boolean;
}

export interface ListenHook {
	id: string;
	secret: string;
	/** False when a hook left by an earlier run (--keep, or a run that was killed) is used again. */
	created: boolean;
}

/** The name that marks a hook as listen's hook for one address, so a later run finds it. */
export const listenHookName = (forwardTo: string) => `listen ${forwardTo}`;

/**
 * The hook secret of one key and address. Derived, not stored: every run for the same address gets the same secret
 * without a state file, and the sandbox never has to show a secret it keeps (it is given this one).
 */
export function listenSecret(key: string, forwardTo: string): string {
	const bytes = createHmac('sha256', key).update(`messenger-bot-builder-sandbox listen\n${forwardTo}`).digest();
	return HOOK_SECRET_PREFIX + bytes.toString('base64');
}

async function allHooks(client: SandboxClient): Promise<HookView[]> {
	const hooks: HookView[] = [];
	for (;;) {
		const page = await client.api<{ items: HookView[]; total?: number }>('/hook/list', {
			limit: 100,
			offset: hooks.length,
		});
		hooks.push(...page.items);
		if (page.items.length < 100) return hooks;
	}
}

const sameKinds = (a: string[], b: string[]) => a.length === b.length && a.every((kind) => b.includes(kind));

/**
 * Listen's hook for the address: the one an earlier run left when it still fits (same kinds, not disabled by a 410),
 * else a new one (misfits are deleted). Either way it is given the derived secret.
 */
export async function openListenHook(
	client: SandboxClient,
	key: string,
	forwardTo: string,
	events: string[],
): Promise<ListenHook> {
	const name = listenHookName(forwardTo);
	const earlier = (await allHooks(client)).filter((hook) => hook.name === name && hook.url === forwardTo);
	const fitting = earlier.find((hook) => !hook.disabled && sameKinds(hook.events, events));
	for (const hook of earlier) if (hook !== fitting) await client.api('/hook/delete', { id: hook.id });
	let id = fitting?.id;
	if (id === undefined) {
		const made = await client.api<{ hook: { id: string }; secret?: string }>('/hook/create', {
			name,
			url: forwardTo,
			events,
		});
		id = made.hook.id;
		if (made.secret === undefined) {
			await client.api('/hook/delete', { id });
			throw new ListenError(
				'the sandbox signs deliveries with --signing v1a: its hooks have public keys, no secret to forward with',
			);
		}
	}
	const secret = listenSecret(key, forwardTo);
	await client.control('/sandbox/hooks/secret', { id, secret });
	return { id, secret, created: fitting === undefined };
}

/** Removes listen's hook; its pending deliveries are cancelled. */
export async function closeListenHook(client: SandboxClient, id: string): Promise<void> {
	try {
		await client.api('/hook/delete', { id });
	} catch (error) {
		// Already gone (deleted by hand, or the sandbox was reset): nothing left to remove.
		if (error instanceof ListenError && error.status === 422) return;
		throw error;
	}
}
