import type { Resource } from '../types';
import { create } from './create.operation';
import { revoke } from './revoke.operation';

export const apiKey: Resource = {
	value: 'apiKey',
	name: 'API Key',
	description: 'Keys with restricted rights',
	operations: [create, revoke],
};
