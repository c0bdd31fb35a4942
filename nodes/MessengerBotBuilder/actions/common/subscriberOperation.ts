import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { apiRequest } from '../../transport/request';
import type { Operation } from '../types';
import { botField, clientIdFields } from './fields';
import { subscriberKey } from './params';
import { recipientOf, requestBesides } from './recipient';

interface SubscriberOperationSpec {
	value: string;
	name: string;
	action: string;
	description: string;
	/** GET reads; POST sends, starts or changes something for the subscriber, and its output then says to whom and what. */
	method: 'GET' | 'POST';
	path: string;
	/** Shown after Bot and Client ID. */
	properties?: INodeProperties[];
	/** Parameters besides botid and clientid. */
	params?(this: IExecuteFunctions, itemIndex: number): IDataObject;
	/** Shapes the answer into output item(s); the answer as it is by default. */
	output?(answer: IDataObject): IDataObject | IDataObject[];
}

/** The fields of `recipient` in the output of a change: the subscriber as the service addresses it. */
export const RECIPIENT_FIELDS = ['botid', 'clientid', 'messenger'] as const;

/**
 * An operation on one subscriber (Bot + Client ID) that makes one call. The output of a change also
 * holds `recipient` ({ botid, clientid, messenger }) and, when anything besides it was sent,
 * `request` (e.g. the text and buttons of a message): an item that ran many times shows each time whom it reached.
 */
export function subscriberOperation(spec: SubscriberOperationSpec): Operation {
	return {
		value: spec.value,
		name: spec.name,
		action: spec.action,
		description: spec.description,
		properties: [botField(), ...clientIdFields(), ...(spec.properties ?? [])],
		async execute(itemIndex) {
			const params = { ...subscriberKey.call(this, itemIndex), ...spec.params?.call(this, itemIndex) };
			const answer = await apiRequest.call(this, { method: spec.method, path: spec.path, params, itemIndex });
			const output = spec.output ? spec.output(answer) : answer;
			if (spec.method === 'GET' || Array.isArray(output)) return output;
			const request = requestBesides(params, RECIPIENT_FIELDS);
			return {
				...output,
				recipient: await recipientOf.call(this, params, answer),
				...(Object.keys(request).length ? { request } : {}),
			};
		},
	};
}

/** Answers of the form `{ subscriber }` become the card itself. */
export const card = (answer: IDataObject): IDataObject => (answer.subscriber as IDataObject) ?? answer;
