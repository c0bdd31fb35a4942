import type { Resource } from '../types';
import { deleteWebApp } from './delete.operation';

export const webApp: Resource = {
	value: 'webApp',
	name: 'Web App',
	description: 'Catalog applications',
	operations: [deleteWebApp],
};
