import type { Resource } from '../types';
import { clearNext } from './clearNext.operation';
import { send } from './send.operation';

export const message: Resource = {
	value: 'message',
	name: 'Message',
	description: 'Messages to one subscriber',
	operations: [clearNext, send],
};
