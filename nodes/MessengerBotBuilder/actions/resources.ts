import type { Resource } from './types';
import { registerResources } from './common/operationProperties';
import { account } from './account';
import { apiKey } from './apiKey';
import { block } from './block';
import { bot } from './bot';
import { broadcast } from './broadcast';
import { catalog } from './catalog';
import { catalogItem } from './catalogItem';
import { chain } from './chain';
import { crm } from './crm';
import { list } from './list';
import { listRow } from './listRow';
import { message } from './message';
import { project } from './project';
import { statistics } from './statistics';
import { subscriber } from './subscriber';
import { webApp } from './webApp';
import { webhook } from './webhook';

/** Every resource of the node. Adding a resource: a folder like `account/` and one line here. */
export const resources: Resource[] = [
	account,
	apiKey,
	block,
	bot,
	broadcast,
	catalog,
	catalogItem,
	chain,
	crm,
	list,
	listRow,
	message,
	project,
	statistics,
	subscriber,
	webApp,
	webhook,
];

registerResources(resources);
