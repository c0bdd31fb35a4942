import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { checkClaim, DEFAULT_CLAIM_HOURS } from './claimLog';
import { OUTPUT_ENVELOPE, REPEAT_CHECK_CLAIM_LOG, RESPOND_WHEN_FINISHED } from './description';
import { EVENT_KINDS, isKnownEventKind, outputIndexOf } from './events';
import { readHookState } from './hookState';
import { checkRepeat, DEFAULT_HISTORY_SIZE } from './repeatCheck';
import { markAccepted } from './seenEvents';

export interface TriggerOptions {
	output?: string;
	passUnknownEvents?: boolean;
	outputPerEvent?: boolean;
	historySize?: number;
	claimHours?: number;
	respondWhen?: string;
}

interface ReceivedEvent {
	id: string;
	type: string;
	hook?: string;
	data?: unknown;
}

function eventOf(context: IExecuteFunctions, item: INodeExecutionData, index: number): ReceivedEvent {
	const { id, type } = item.json;
	if (typeof id !== 'string' || typeof type !== 'string') {
		throw new NodeOperationError(context.getNode(), 'The trigger received an item that is not a delivered event', {
			itemIndex: index,
			description:
				'The trigger starts workflows from its own deliveries only. Remove pinned data or test data that is not an event.',
		});
	}
	return item.json as unknown as ReceivedEvent;
}

/**
 * Whether this execution runs the event: a repeat already run by another execution (it reached another n8n process,
 * or came after a restart) starts nothing. Test events ("Listen for test event") and executions a person retries
 * are not checked: a person asked for those runs.
 */
async function runsHere(context: IExecuteFunctions, event: ReceivedEvent, options: TriggerOptions): Promise<boolean> {
	const mode = context.getMode();
	if (mode === 'manual' || mode === 'retry') return true;
	// Per hook: the service may send one event to several hooks (a test hook and the live one). The event's `hook` is
	// verified (the JWT's audience, or checked against the hook under Standard Webhooks); the stored id is a fallback.
	const hookId = event.hook ?? readHookState(context.getWorkflowStaticData('node')).hookId ?? '';
	const verdict =
		context.getNodeParameter('repeatCheck', 0, '') === REPEAT_CHECK_CLAIM_LOG
			? await checkClaim(context, { hook: hookId, id: event.id }, options.claimHours ?? DEFAULT_CLAIM_HOURS)
			: await checkRepeat(
					context,
					// JSON arrays: no event id can make a key equal another event's claim.
					JSON.stringify(['event', hookId, event.id]),
					JSON.stringify(['claim', hookId, event.id, context.getExecutionId()]),
					options.historySize ?? DEFAULT_HISTORY_SIZE,
				);
	// Recorded or run here: a repeat reaching this process now gets "duplicate" in webhook() without an execution.
	markAccepted(hookId, event.id, Math.floor(Date.now() / 1000));
	if (verdict.outcome === 'repeat' && verdict.runs && options.respondWhen === RESPOND_WHEN_FINISHED) {
		// The service is answered only when this execution ends: a 200 now would stop its retries, and the event would
		// be lost if that other run then fails or its worker dies. Failing makes the service deliver it again later.
		throw new NodeOperationError(context.getNode(), `Event ${event.id} is still being run by execution ${verdict.of}`, {
			description:
				'This delivery fails on purpose, so that the service delivers the event again: the next delivery runs nothing if that execution has succeeded by then, and runs the event if it has failed.',
		});
	}
	if (verdict.outcome === 'repeat') {
		context.logger.info(
			`Messenger Bot Builder Trigger: event ${event.id} was already run by another execution${verdict.of ? ` (${verdict.of})` : ''}; this one starts nothing`,
			{
				eventId: event.id,
				executionId: context.getExecutionId(),
				runBy: verdict.of,
			},
		);
		// Execution custom data came with n8n 2.16 (n8n-core's ExecuteContext), hints earlier: neither is required.
		const optional = context as Partial<Pick<IExecuteFunctions, 'customData' | 'addExecutionHints'>>;
		optional.customData?.set('repeatOf', event.id.slice(0, 255));
		optional.addExecutionHints?.({
			message: `Event ${event.id} was already delivered and run by another execution, so this one starts nothing (a repeat delivery that reached another n8n process).`,
			location: 'outputPane',
		});
		return false;
	}
	if (verdict.outcome === 'unchecked') {
		context.logger.warn(
			`Messenger Bot Builder Trigger: event ${event.id} runs without the repeat check (${verdict.why})`,
			{ eventId: event.id },
		);
	}
	return true;
}

/**
 * "Always Output Data" would turn a repeat's empty output into one empty item (n8n-core
 * `WorkflowExecute.ensureAlwaysOutputData`) and run the nodes after the trigger for an event already run: refused,
 * here and when the workflow is published (lifecycle.ts).
 */
export function refuseAlwaysOutputData(node: INode): void {
	if (node.alwaysOutputData !== true) return;
	throw new NodeOperationError(node, 'Turn off "Always Output Data" in the trigger\'s settings', {
		description:
			'With it, an event the service delivers twice would run the nodes after the trigger twice: the repeat would put out an empty item instead of nothing.',
	});
}

/** The trigger's part of the execution: each delivered event (once) on its output, shaped as the options say. */
export async function emitEvents(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as TriggerOptions;
	refuseAlwaysOutputData(this.getNode());
	const outputs: INodeExecutionData[][] = Array.from(
		{ length: options.outputPerEvent ? EVENT_KINDS.length + (options.passUnknownEvents ? 1 : 0) : 1 },
		() => [],
	);
	for (const [index, item] of this.getInputData().entries()) {
		const event = eventOf(this, item, index);
		if (!(await runsHere(this, event, options))) continue;
		// An unknown kind always leaves as the whole event: its data alone would not say what happened.
		const json = (
			options.output === OUTPUT_ENVELOPE || !isKnownEventKind(event.type) ? event : (event.data ?? {})
		) as IDataObject;
		const output = options.outputPerEvent ? outputIndexOf(event.type) : 0;
		if (output >= outputs.length) {
			// An unknown kind without "Pass Unknown Event Kinds": webhook() passes none, unless the options changed between.
			throw new NodeOperationError(
				this.getNode(),
				`The event kind ${event.type} has no output: turn on "Pass Unknown Event Kinds"`,
				{
					itemIndex: index,
				},
			);
		}
		outputs[output].push(...this.helpers.returnJsonArray(json));
	}
	return outputs;
}
