import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { apiRequest } from '../../transport/request';
import type { Operation } from '../types';
import { botField, clientIdFields } from './fields';
import { subscriberKey } from './params';

interface SubscriberOperationSpec {
	value: string;
	name: string;
	action: string;
	description: string;
	method: 'GET' | 'POST';
	path: string;
	/** Shown after Bot and Client ID. */
	properties?: INodeProperties[];
	/** Parameters besides botid and clientid. */
	params?(this: IExecuteFunctions, itemIndex: number): IDataObject;
	/** Shapes the answer into output item(s); the answer as it is by default. */
	output?(answer: IDataObject): IDataObject | IDataObject[];
}

/** An operation on one subscriber (Bot + Client ID) that makes one call. */
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
			return spec.output ? spec.output(answer) : answer;
		},
	};
}

/** Answers of the form `{ subscriber }` become the card itself. */
export const card = (answer: IDataObject): IDataObject => (answer.subscriber as IDataObject) ?? answer;
