import type { Resource } from '../types';
import { clearNext } from './clearNext.operation';
import { send } from './send.operation';
import { sendAndWait } from './sendAndWait/operation';

export const message: Resource = {
	value: 'message',
	name: 'Message',
	description: 'Messages to one subscriber, and questions whose answer the workflow waits for',
	operations: [clearNext, send, sendAndWait],
};
