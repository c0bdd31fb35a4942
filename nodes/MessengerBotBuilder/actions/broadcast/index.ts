import type { Resource } from '../types';
import { send } from './send.operation';
import { stop } from './stop.operation';

export const broadcast: Resource = {
	value: 'broadcast',
	name: 'Broadcast',
	description: 'One message to a whole segment of subscribers',
	operations: [send, stop],
};
