import type { Resource } from '../types';
import { download } from './download.operation';
import { getDownloadLink } from './getDownloadLink.operation';

export const catalog: Resource = {
	value: 'catalog',
	name: 'Catalog',
	description: 'The catalog file of a web app',
	operations: [download, getDownloadLink],
	// Released with Get Download Link as the only (so default) operation: Download, added later, sorts first.
	defaultOperation: 'getDownloadLink',
};
