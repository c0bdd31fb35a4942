import type { Resource } from './types';
import { account } from './account';
import { bot } from './bot';
import { project } from './project';

/** Every resource of the node. Adding a resource: a folder like `account/` and one line here. */
export const resources: Resource[] = [account, bot, project];
