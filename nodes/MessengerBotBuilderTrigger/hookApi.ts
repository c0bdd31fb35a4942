import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { fetchPages } from '../MessengerBotBuilder/transport/pagination';
import { apiRequest } from '../MessengerBotBuilder/transport/request';

/** A new hook and what verifies its deliveries: a `whsec_` secret, or a `whpk_` public key (`v1a` signatures). */
export interface CreatedHook {
	id: string;
	secret?: string;
	publicKey?: string;
}

export interface ListedHook {
	id: string;
	url?: string;
	disabled?: boolean;
}

/** True when the service does not have the endpoint at all (it answers 404 for an unknown path). */
export function isMissingEndpoint(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
}

/** `/hook/create`; the answer's secret (or public key) is returned to the caller only, never logged. */
export async function createHook(
	this: IHookFunctions,
	subscription: { name: string; url: string; events: string[] },
): Promise<CreatedHook> {
	const answer = await apiRequest.call(this, {
		method: 'POST',
		path: '/hook/create',
		params: { ...subscription } as IDataObject,
	});
	const hook = answer.hook as IDataObject | undefined;
	const id = hook?.id ?? answer.id;
	const secret = typeof answer.secret === 'string' && answer.secret.startsWith('whsec_') ? answer.secret : undefined;
	const publicKey =
		typeof answer.publicKey === 'string' && answer.publicKey.startsWith('whpk_') ? answer.publicKey : undefined;
	if ((typeof id !== 'string' && typeof id !== 'number') || (!secret && !publicKey)) {
		throw new NodeApiError(
			this.getNode(),
			{ code: 'unexpected_answer' },
			{
				message: '/hook/create did not answer with a hook id and a "whsec_" signing secret (or a "whpk_" public key)',
				description:
					'The trigger cannot check deliveries without the secret. Check that the base URL points at the service API.',
			},
		);
	}
	return { id: String(id), secret, publicKey };
}

/** Every hook the key can see (`/hook/list`, where the service has it). */
export async function listHooks(this: IHookFunctions): Promise<ListedHook[]> {
	const hooks = await fetchPages.call(this, { method: 'GET', path: '/hook/list' }, { returnAll: true, limit: 0 });
	return hooks.map((hook) => ({
		id: String(hook.id),
		url: typeof hook.url === 'string' ? hook.url : undefined,
		disabled: hook.disabled === true,
	}));
}

/** `/hook/delete` (where the service has it). */
export async function deleteHook(this: IHookFunctions, id: string): Promise<void> {
	await apiRequest.call(this, { method: 'POST', path: '/hook/delete', params: { id } });
}

/** True when the service says the hook itself no longer exists (422 `not_found` on its id). */
export function isUnknownHook(error: unknown): boolean {
	return (
		error instanceof NodeApiError && error.httpCode === '422' && (error.context as IDataObject).code === 'not_found'
	);
}
