import { HOOK_SECRET_PREFIX } from '@messenger-bot-builder/receiver';
import { hookUsesOwnSigningKey } from '../delivery/signingKeys';
import { findHook } from '../domain/hooks';
import { conflictingParam, invalidParam, notFound } from '../http/errors';
import type { Store } from '../store/store';

/** `whsec_` and base64 of 24 to 64 bytes: as strong as a generated secret and no longer than a verifier expects. */
const SECRET = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function secretBytes(secret: string): number {
	return Buffer.from(secret.slice(HOOK_SECRET_PREFIX.length), 'base64').length;
}

/**
 * Gives a hook a secret its caller chose. `listen` derives that secret from the account key and the forwarding
 * address, so a developer's receiver keeps one secret across runs while every run makes (and removes) its own hook;
 * the sandbox only ever receives the secret and never shows one, so the rule that a secret is shown once holds.
 */
export function setHookSecret(store: Store, hookId: string, secret: string): void {
	if (!SECRET.test(secret) || secretBytes(secret) < 24 || secretBytes(secret) > 64)
		throw invalidParam('secret', 'must be "whsec_" followed by the base64 of 24 to 64 bytes');
	const hook = findHook(store, hookId);
	if (!hook) throw notFound(`Hook ${hookId}`, 'id');
	if (hookUsesOwnSigningKey(store, hook.id))
		throw conflictingParam('id', 'is a hook made under --signing v1a: it signs with its own key and has no secret');
	hook.secret = secret;
}
