import type { Resource } from '../types';
import { download } from './download.operation';
import { getDownloadLink } from './getDownloadLink.operation';

export const catalog: Resource = {
	value: 'catalog',
	name: 'Catalog',
	description: 'The catalog file of a web app',
	operations: [download, getDownloadLink],
};
