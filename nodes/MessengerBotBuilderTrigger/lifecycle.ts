import type { IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { refuseAlwaysOutputData } from './emit';
import { ALL_EVENTS, subscribedKinds } from './events';
import { createHook, deleteHook, isMissingEndpoint, isUnknownHook, listHooks } from './hookApi';
import { forgetHook, readHookState, rememberHook } from './hookState';

function webhookUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(context.getNode(), 'n8n did not provide a webhook URL for this trigger');
	return url;
}

function wantedEvents(context: IHookFunctions): string[] {
	const selected = context.getNodeParameter('events', [ALL_EVENTS]) as string[];
	const kinds = subscribedKinds(selected);
	if (kinds.length === 0) {
		throw new NodeOperationError(context.getNode(), 'Choose at least one event in "Events"', {
			description: 'The hook must listen to at least one event kind.',
		});
	}
	return kinds;
}

/** A name that lets a person find the hook in the service and tell which workflow made it. */
function hookName(context: IHookFunctions): string {
	return `n8n: ${context.getWorkflow().name ?? context.getWorkflow().id} / ${context.getNode().name}`.slice(0, 200);
}

function sameList(a: string[] | undefined, b: string[]): boolean {
	return a !== undefined && a.length === b.length && a.every((value, index) => value === b[index]);
}

/**
 * Removes the hook the node remembers. Where the service has no `/hook/delete` (404), deactivation
 * still succeeds and n8n's log says exactly which hook to remove by hand.
 */
async function removeRememberedHook(context: IHookFunctions): Promise<void> {
	const staticData = context.getWorkflowStaticData('node');
	const state = readHookState(staticData);
	if (!state.hookId) return;
	try {
		await deleteHook.call(context, state.hookId);
	} catch (error) {
		if (isMissingEndpoint(error)) {
			context.logger.warn(
				`Messenger Bot Builder Trigger "${context.getNode().name}": the service cannot remove hooks through its API. ` +
					`Remove hook ${state.hookId} (events ${(state.events ?? []).join(', ')}, address ${state.url ?? 'unknown'}) by hand in the service; ` +
					'until then it keeps sending events that this trigger refuses.',
				{ hookId: state.hookId, workflowId: context.getWorkflow().id },
			);
		} else if (isUnknownHook(error)) {
			context.logger.debug(`Hook ${state.hookId} was already removed from the service`);
		} else {
			throw new NodeApiError(context.getNode(), error as JsonObject);
		}
	}
	forgetHook(staticData);
}

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	// n8n asks this first whenever the workflow is published: a setting that would run repeats stops it here.
	refuseAlwaysOutputData(this.getNode());
	const state = readHookState(this.getWorkflowStaticData('node'));
	if (!state.hookId || (!state.secret && !state.publicKey)) return false;
	// The node's address or events changed since the hook was made: replace it rather than reuse it.
	if (state.url !== webhookUrl(this) || !sameList(state.events, wantedEvents(this))) {
		await removeRememberedHook(this);
		return false;
	}
	let hooks;
	try {
		hooks = await listHooks.call(this);
	} catch (error) {
		if (!isMissingEndpoint(error)) throw new NodeApiError(this.getNode(), error as JsonObject);
		// No /hook/list on this service: the remembered hook is the best knowledge there is.
		this.logger.debug(`The service cannot list hooks; trusting hook ${state.hookId} remembered by the trigger`);
		return true;
	}
	const hook = hooks.find((candidate) => candidate.id === state.hookId);
	if (hook && !hook.disabled) return true;
	// Gone, or disabled by the service after failed deliveries: start over with a new hook.
	if (hook) await removeRememberedHook(this);
	else forgetHook(this.getWorkflowStaticData('node'));
	return false;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(this);
	const events = wantedEvents(this);
	const hook = await createHook.call(this, { name: hookName(this), url, events });
	rememberHook(this.getWorkflowStaticData('node'), {
		hookId: hook.id,
		secret: hook.secret,
		publicKey: hook.publicKey,
		url,
		events,
	});
	return true;
}

// `delete` is a reserved word, hence the name; the node maps it to `delete`.
export async function remove(this: IHookFunctions): Promise<boolean> {
	await removeRememberedHook(this);
	return true;
}
