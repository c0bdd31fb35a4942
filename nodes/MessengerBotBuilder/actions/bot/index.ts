import type { Resource } from '../types';
import { getMany } from './getMany.operation';

export const bot: Resource = {
	value: 'bot',
	name: 'Bot',
	description: 'The chatbots of the account',
	operations: [getMany],
};
