import type { Resource } from '../types';
import { create } from './create.operation';
import { deleteWebhook } from './delete.operation';
import { getMany } from './getMany.operation';

export const webhook: Resource = {
	value: 'webhook',
	name: 'Webhook',
	description: 'Event subscriptions that notify a URL',
	operations: [create, deleteWebhook, getMany],
};
