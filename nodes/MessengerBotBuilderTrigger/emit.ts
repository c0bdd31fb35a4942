import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { OUTPUT_ENVELOPE } from './description';
import { EVENT_KINDS, isKnownEventKind, outputIndexOf } from './events';
import { readHookState } from './hookState';
import { checkRepeat, DEFAULT_HISTORY_SIZE } from './repeatCheck';
import { markAccepted } from './seenEvents';

export interface TriggerOptions {
	output?: string;
	passUnknownEvents?: boolean;
	outputPerEvent?: boolean;
	historySize?: number;
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
async function runsHere(context: IExecuteFunctions, event: ReceivedEvent, historySize: number): Promise<boolean> {
	const mode = context.getMode();
	if (mode === 'manual' || mode === 'retry') return true;
	// Per hook: the service may send one event to several hooks (a test hook and the live one). The event's `hook` is
	// verified (the JWT's audience, or checked against the hook under Standard Webhooks); the stored id is a fallback.
	const hookId = event.hook ?? readHookState(context.getWorkflowStaticData('node')).hookId ?? '';
	// JSON arrays: no event id can make a key equal another event's claim.
	const key = JSON.stringify(['event', hookId, event.id]);
	const verdict = await checkRepeat(
		context,
		key,
		JSON.stringify(['claim', hookId, event.id, context.getExecutionId()]),
		historySize,
	);
	// Recorded or run here: a repeat reaching this process now gets "duplicate" in webhook() without an execution.
	markAccepted(hookId, event.id, Math.floor(Date.now() / 1000));
	if (verdict.outcome === 'repeat') {
		context.logger.info(
			`Messenger Bot Builder Trigger: event ${event.id} was already run by another execution; this one starts nothing`,
			{
				eventId: event.id,
				executionId: context.getExecutionId(),
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

/** The trigger's part of the execution: each delivered event (once) on its output, shaped as the options say. */
export async function emitEvents(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as TriggerOptions;
	const historySize = options.historySize ?? DEFAULT_HISTORY_SIZE;
	const outputs: INodeExecutionData[][] = Array.from(
		{ length: options.outputPerEvent ? EVENT_KINDS.length + (options.passUnknownEvents ? 1 : 0) : 1 },
		() => [],
	);
	for (const [index, item] of this.getInputData().entries()) {
		const event = eventOf(this, item, index);
		if (!(await runsHere(this, event, historySize))) continue;
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
