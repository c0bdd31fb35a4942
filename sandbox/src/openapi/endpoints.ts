import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/params';
import { apiKeyProperties, hookProperties } from './components';
import { anyObject, arrayOf, bool, describe, int, isoTime, nullable, num, object, oneOf, ref, sandbox, sandboxObject, str, strings, type Schema } from './schema';

export type ParamKind = 'text' | 'int' | 'number' | 'bool' | 'textOrList' | 'object' | 'array';

export interface ParamSpec {
  kind: ParamKind;
  required: boolean;
  description: string;
  /** Set when the parameter (or its rule) is the sandbox's decision. */
  sandbox?: string;
}

/** What the contract says about one method of the API (its path, HTTP methods and scope come from the registry). */
export interface EndpointContract {
  tag: string;
  summary: string;
  params: Record<string, ParamSpec>;
  /** The 200 answer. */
  answer: Schema;
  /** Set for the sandbox's extensions, which the service's documentation does not have. */
  extension?: string;
}

const required = (kind: ParamKind, description: string, sandboxRule?: string): ParamSpec => ({ kind, required: true, description, sandbox: sandboxRule });
const optional = (kind: ParamKind, description: string, sandboxRule?: string): ParamSpec => ({ kind, required: false, description, sandbox: sandboxRule });

const PAGE = {
  limit: optional('int', 'Page size.', `Default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE} (more is a 422).`),
  offset: optional('int', 'Items to skip.'),
};
const CARD = {
  botid: required('text', 'Bot identifier (from /bot/list).'),
  clientid: required('text', 'Subscriber identifier inside the messenger.'),
};
const CARD_FIELDS = { name: optional('text', 'Name.'), username: optional('text', 'Nickname.'), note: optional('text', 'Note.') };
/** Values for the service columns ClientID, Messenger and BotID when the row leaves them out. */
const SERVICE_VALUES = {
  clientid: optional('text', 'Fills ClientID.'),
  messenger: optional('text', 'Fills Messenger.'),
  botid: optional('text', 'Fills BotID.'),
};
const LIST_TARGET = {
  listid: optional('int', 'List number; give it or `list`.'),
  list: optional('text', 'List name, instead of `listid`.'),
};
const ITEM_FIELDS: Record<string, ParamSpec> = Object.fromEntries(
  ['title', 'description', 'price', 'oldprice', 'hide', 'pieces', 'code', 'rubric', 'szpieces', 'sizes', 'colors', 'order'].map((field) => [
    field,
    optional(field === 'hide' ? 'bool' : 'text', `Catalog item field \`${field}\`.`),
  ]),
);

const total = sandbox(int, 'The documentation does not name `total` for this method; the sandbox returns the number of matches.');
const page = (items: Schema) => object({ items: arrayOf(items) }, { total });
const documentedPage = (items: Schema) => object({ items: arrayOf(items), total: int });
const ok = (extra: Record<string, Schema> = {}) => sandboxObject({ ok: bool, ...extra });
const result = (extra: Record<string, Schema> = {}) => object({ result: str }, extra);

/** Every method of the API, by path. A registry endpoint missing here (or a path here missing from it) fails the build of the document. */
export const endpointContracts: Record<string, EndpointContract> = {
  '/account/balance/get': { tag: 'Account', summary: 'Balance of the account', params: {}, answer: object({ balance: int }) },
  '/account/get': {
    tag: 'Account',
    summary: 'Account, tariff and usage',
    params: {},
    answer: object({
      account: sandbox({ type: 'object' }, 'Inner fields are not documented.'),
      tariff: sandbox({ type: 'object' }, 'Inner fields are not documented.'),
      used: sandbox({ type: 'object' }, 'Inner fields are not documented.'),
    }),
  },
  '/account/summary': {
    tag: 'Account',
    summary: 'Bots, projects, chains and lists at a glance',
    params: {},
    answer: object({ bots: arrayOf(ref('Bot')), groups: arrayOf(ref('Group')), chains: arrayOf(ref('Chain')), lists: arrayOf(ref('List')) }),
  },
  '/log/get': {
    tag: 'Account',
    summary: 'Log of API calls, newest first',
    params: {
      path: optional('text', 'Part of a method\'s path.'),
      status: optional('int', 'Response status.'),
      failed: optional('bool', 'Only errors.'),
      from: optional('text', 'Start date.', 'A day YYYY-MM-DD of the account time zone, or an ISO 8601 time.'),
      ...PAGE,
    },
    answer: sandbox(
      documentedPage(ref('LogEntry')),
      'Which calls a key sees: a key restricted to bots, only its own and those of the keys it created (directly or through them); any other key with `log:read`, every call. Kept: the 10,000 latest calls made with a valid key, and apart from them the 1,000 latest without one, so calls without a key cannot push out the others; paths longer than 256 characters are stored cut, ending in `…`.',
    ),
  },
  '/bot/list': { tag: 'Account', summary: 'Bots with their BotIDs', params: {}, answer: sandboxObject({ items: arrayOf(ref('Bot')) }) },
  '/group/list': { tag: 'Account', summary: 'Projects with their codes', params: {}, answer: sandboxObject({ items: arrayOf(ref('Group')) }) },

  '/key/create': {
    tag: 'Keys',
    summary: 'Create an API key (its value is shown only here)',
    params: {
      name: required('text', 'Key name.'),
      scopes: required('textOrList', 'Scopes the key gets.'),
      bots: optional('textOrList', 'Bots the key may touch (none: every bot).'),
      days: optional(
        'int',
        'Lifetime in days.',
        'From 1 to 3650. A key never outlives the key that creates it: when that key expires before `days` (or absent: never) would end, the new key expires with it, and the answer says so in `notice`.',
      ),
    },
    answer: {
      ...sandboxObject(
        {
          key: object({ ...apiKeyProperties, key: describe(str, 'The key\'s value: shown only here.') }),
          notice: describe(str, 'Only when the key\'s expiry was cut to its creator\'s: what was asked and when the key expires.'),
        },
        'The service shows no answer. The sandbox\'s rules: a key never outlives or outranks the key that creates it (expiry at most its creator\'s, scopes and bots within its creator\'s).',
      ),
      required: ['key'],
    },
  },
  '/key/revoke': {
    tag: 'Keys',
    summary: 'Revoke an API key',
    params: { id: required('text', 'Key id.') },
    answer: ok({
      key: ref('ApiKey'),
      revokedWith: sandbox(strings, 'Revoking a key revokes every key it created, directly or through them: the ids of those revoked now.'),
    }),
  },

  '/subscriber/get': {
    tag: 'Subscribers',
    summary: 'One subscriber card',
    params: {
      botid: optional('text', 'Bot identifier; required unless `subscriber` is given.'),
      clientid: optional('text', 'Subscriber identifier; required unless `subscriber` is given.'),
      messenger: optional('text', 'Messenger of the subscriber.'),
      subscriber: optional('int', 'Internal card number, instead of the other three.'),
    },
    answer: object({ subscriber: ref('Subscriber') }),
  },
  '/subscriber/find': {
    tag: 'Subscribers',
    summary: 'Search subscribers by name, nickname, code or note',
    params: { query: required('text', 'What to search.'), tag: optional('text', 'Exact tag.'), botid: optional('text', 'Search in one bot.'), ...PAGE },
    answer: page(ref('Subscriber')),
  },
  '/subscriber/list': {
    tag: 'Subscribers',
    summary: 'Subscribers, filtered and paged',
    params: {
      botid: optional('text', 'One bot.'),
      messenger: optional('text', 'One messenger.'),
      tag: optional('text', 'Exact tag.'),
      active: optional('bool', 'Active or not.'),
      blocked: optional('bool', 'Blocked or not.'),
      dialog: optional('bool', 'Started a dialog or not.'),
      from: optional('text', 'Subscription date from.'),
      to: optional('text', 'Subscription date to.'),
      sort: optional('text', '`new` or `old`.', 'Default `old`.'),
      ...PAGE,
    },
    answer: documentedPage(ref('Subscriber')),
  },
  '/subscriber/tag/list': { tag: 'Subscribers', summary: 'Tags of a subscriber', params: CARD, answer: object({ tags: strings }) },
  '/subscriber/data/get': {
    tag: 'Subscribers',
    summary: 'Variables of a subscriber by chain',
    params: { ...CARD, chaincode: optional('text', 'Only one chain.') },
    answer: object({ chains: arrayOf(sandboxObject({ chaincode: str, name: nullable(str), variables: anyObject })) }),
  },
  '/subscriber/chat/get': {
    tag: 'Subscribers',
    summary: 'Chat history, newest first',
    params: { ...CARD, ...PAGE },
    answer: page(ref('ChatMessage')),
  },
  '/subscriber/chains/get': { tag: 'Subscribers', summary: 'Chains running for a subscriber', params: CARD, answer: object({ chains: arrayOf(ref('ChainRun')) }) },
  '/subscriber/create': {
    tag: 'Subscribers',
    summary: 'Create or update a subscriber',
    params: {
      ...CARD,
      messenger: optional('text', 'Messenger.', 'Must be the bot\'s messenger.'),
      ...CARD_FIELDS,
    },
    answer: object({ subscriber: ref('Subscriber'), created: bool }),
  },
  '/subscriber/update': {
    tag: 'Subscribers',
    summary: 'Update a subscriber\'s fields',
    params: { ...CARD, ...CARD_FIELDS },
    answer: object({ subscriber: ref('Subscriber') }),
  },
  '/subscriber/tag/add': {
    tag: 'Subscribers',
    summary: 'Add tags (a chain triggered by a tag starts)',
    params: { ...CARD, tag: required('textOrList', 'A tag or an array of tags.') },
    answer: object({ tags: strings, chains: bool }),
  },
  '/subscriber/tag/remove': {
    tag: 'Subscribers',
    summary: 'Remove tags',
    params: { ...CARD, tag: required('textOrList', 'A tag or an array of tags.') },
    answer: object({ tags: strings }),
  },
  '/subscriber/data/set': {
    tag: 'Subscribers',
    summary: 'Write variables',
    params: { ...CARD, data: required('object', 'Variable name to value.'), chaincode: optional('text', 'Write into one chain only.') },
    answer: object({ ok: bool, chains: int }),
  },
  '/subscriber/block': { tag: 'Subscribers', summary: 'Block a subscriber', params: CARD, answer: object({ subscriber: ref('Subscriber') }) },
  '/subscriber/unblock': { tag: 'Subscribers', summary: 'Unblock a subscriber', params: CARD, answer: object({ subscriber: ref('Subscriber') }) },
  '/subscriber/delete': {
    tag: 'Subscribers',
    summary: 'Delete a subscriber',
    params: { ...CARD, messenger: required('text', 'Messenger.') },
    answer: result(),
  },

  '/message/send': {
    tag: 'Messaging',
    summary: 'Send a message to a subscriber',
    params: { ...CARD, text: required('text', 'Text.'), buttons: optional('array', 'Link buttons, each {name, url}.') },
    answer: object({ ok: bool, sent: int }),
  },
  '/message/next/clear': { tag: 'Messaging', summary: 'Clear the deferred next message', params: CARD, answer: result({ cleared: int }) },
  '/block/start': {
    tag: 'Messaging',
    summary: 'Start a block of a chain step',
    params: {
      ...CARD,
      chaincode: required('text', 'Chain code.'),
      stepcode: required('text', 'Step code.'),
      block: optional('text', 'Block number from 1, or block ID.'),
      data: optional('object', 'Variables for the scenario.'),
    },
    answer: object({ ok: bool, block: str }),
  },
  '/chain/start': {
    tag: 'Messaging',
    summary: 'Start a chain from its first step',
    params: { ...CARD, chaincode: required('text', 'Chain code.'), data: optional('object', 'Variables for the scenario.') },
    answer: object({ ok: bool }),
  },
  '/chain/stop': {
    tag: 'Messaging',
    summary: 'Stop one chain, or all',
    params: { ...CARD, chaincode: optional('text', 'Chain code; empty stops all.') },
    answer: object({ ok: bool, stopped: int }),
  },
  '/broadcast/send': {
    tag: 'Messaging',
    summary: 'Plan a broadcast to a segment',
    params: {
      text: required('text', 'Text.'),
      buttons: optional('array', 'Link buttons.'),
      botid: optional('text', 'One bot.'),
      tag: optional('textOrList', 'A tag or an array of tags.'),
      dialog: optional('bool', 'Only those who started a dialog.'),
      name: optional('text', 'Broadcast name.'),
    },
    answer: object({ ok: bool, planned: int, code: str }),
  },
  '/broadcast/stop': { tag: 'Messaging', summary: 'Cancel a planned broadcast', params: { code: required('text', 'Broadcast code.') }, answer: object({ ok: bool, cleared: int }) },

  '/crm/stage/set': {
    tag: 'CRM',
    summary: 'Set a subscriber\'s funnel stage',
    params: { ...CARD, stage: required('text', 'Stage name.') },
    answer: sandboxObject({ ok: bool, subscriber: ref('Subscriber'), stage: str, previous: nullable(str), chains: bool }),
  },
  '/crm/board': {
    tag: 'CRM',
    summary: 'Subscribers across the funnel',
    params: { botid: optional('text', 'One bot.') },
    answer: sandboxObject({
      stages: arrayOf(object({ name: str, tag: str, order: int, count: int, subscribers: arrayOf(anyObject) })),
      none: object({ count: int, subscribers: arrayOf(anyObject) }),
      total: int,
    }),
  },
  '/stat/get': {
    tag: 'Statistics',
    summary: 'Subscribers and sent messages by day',
    params: { from: required('text', 'First day, YYYY-MM-DD.'), to: required('text', 'Last day, YYYY-MM-DD.'), botid: optional('text', 'One bot.', 'A sandbox addition.') },
    answer: sandboxObject({
      from: str,
      to: str,
      timezone: str,
      items: arrayOf(object({ date: str, subscribers: int, messages: int })),
      total: object({ subscribers: int, messages: int }),
    }),
  },

  '/list/all': {
    tag: 'Lists',
    summary: 'Every list',
    params: { group: optional('text', 'Project code.') },
    answer: object({ items: arrayOf(ref('List')) }),
  },
  '/list/create': {
    tag: 'Lists',
    summary: 'Create a list',
    params: { name: required('text', 'Unused name.'), headers: required('array', 'Column names.'), group: optional('text', 'Project code.') },
    answer: sandboxObject({ list: ref('List') }),
  },
  '/list/clear': { tag: 'Lists', summary: 'Remove every row of a list', params: LIST_TARGET, answer: ok({ cleared: int, list: ref('List') }) },
  '/list/rows/get': {
    tag: 'Lists',
    summary: 'Rows of a list',
    params: { ...LIST_TARGET, ...PAGE, sort: optional('text', '`old` (default) or `new`.') },
    answer: documentedPage(ref('Row')),
  },
  '/list/rows/find': {
    tag: 'Lists',
    summary: 'Rows matching conditions (a scan of the whole list)',
    params: {
      ...LIST_TARGET,
      where: optional('object', 'Column to value; conditions combine with AND.'),
      column: optional('text', 'One condition: column.'),
      value: optional('text', 'One condition: value.'),
      exact: optional('bool', 'False: case-insensitive substring match.', 'Default false.'),
      sort: optional('text', '`old` or `new`.'),
      ...PAGE,
    },
    answer: sandbox(documentedPage(ref('Row')), 'The documentation says "rows"; the sandbox answers a page.'),
  },
  '/list/row/add': {
    tag: 'Lists',
    summary: 'Add a row (honours Idempotency-Key)',
    params: {
      ...LIST_TARGET,
      row: optional('object', 'Column name to value.'),
      values: optional('array', 'Values in column order.'),
      ...SERVICE_VALUES,
    },
    answer: object({ row: ref('Row'), trimmed: bool }),
  },
  '/list/rows/add': {
    tag: 'Lists',
    summary: 'Add up to 500 rows at once (all or nothing)',
    params: { ...LIST_TARGET, rows: required('array', 'Objects or arrays.'), ...SERVICE_VALUES },
    answer: sandboxObject({ rows: arrayOf(ref('Row')), count: int, trimmed: bool, removed: int }),
  },
  '/list/row/edit': {
    tag: 'Lists',
    summary: 'Change a row',
    params: { ...LIST_TARGET, rowid: required('int', 'Row number.'), row: optional('object', 'Only these columns change.'), values: optional('array', 'The whole row.') },
    answer: sandboxObject({ row: ref('Row') }),
  },
  '/list/row/delete': {
    tag: 'Lists',
    summary: 'Delete rows',
    params: { ...LIST_TARGET, rowid: optional('int', 'One row.'), rowids: optional('array', 'Several rows.') },
    answer: ok({ deleted: int, rowids: arrayOf(int) }),
  },

  '/catalog/item/create': {
    tag: 'Catalog',
    summary: 'Create a catalog item',
    params: { webappid: required('text', 'Web app.'), ...ITEM_FIELDS },
    answer: object({ id: num, result: str }),
  },
  '/catalog/item/edit': {
    tag: 'Catalog',
    summary: 'Change a catalog item',
    params: { webappid: required('text', 'Web app.'), itemid: required('int', 'Item.'), ...ITEM_FIELDS },
    answer: result(),
  },
  '/catalog/item/delete': { tag: 'Catalog', summary: 'Delete a catalog item', params: { itemid: required('int', 'Item.') }, answer: result() },
  '/catalog/item/bulk/create': {
    tag: 'Catalog',
    summary: 'Create several items (all or nothing)',
    params: { webappid: required('text', 'Web app.'), items: required('array', 'Objects with item fields.') },
    answer: object({ id: arrayOf(num), result: str }),
  },
  '/catalog/item/bulk/edit': {
    tag: 'Catalog',
    summary: 'Change several items (all or nothing)',
    params: { webappid: required('text', 'Web app.'), items: required('array', 'Objects with itemid and item fields.') },
    answer: result({ updated: int }),
  },
  '/catalog/item/bulk/delete': {
    tag: 'Catalog',
    summary: 'Delete several items',
    params: { items: required('array', 'Objects with itemid.') },
    answer: result({ deleted: int }),
  },
  '/catalog/items/delete': { tag: 'Catalog', summary: 'Delete every item of a web app', params: { webappid: required('text', 'Web app.') }, answer: result({ deleted: int }) },
  '/catalog/get': {
    tag: 'Catalog',
    summary: 'A download link to the catalog file (valid 2 minutes)',
    params: { webappid: required('text', 'Web app.') },
    answer: object({ link: str, notice: str }, { expires: isoTime }),
  },
  '/webapp/delete': { tag: 'Catalog', summary: 'Delete a web app', params: { id: required('text', 'Web app id.') }, answer: result({ deleted: int }) },

  '/hook/create': {
    tag: 'Hooks',
    summary: 'Subscribe a URL to events (the secret is shown only here)',
    params: { name: required('text', 'Name.'), url: required('text', 'Receiver URL.'), events: required('textOrList', 'Event kinds.') },
    answer: oneOf(
      sandboxObject({ hook: ref('Hook'), secret: str }),
      sandboxObject(
        { hook: ref('Hook'), publicKey: str },
        'Under `--signing v1a` the hook signs Standard Webhooks `v1a` (Ed25519) with its own key: the answer gives its public key `whpk_…` instead of a secret.',
      ),
    ),
  },
  '/hook/list': {
    tag: 'Hooks',
    summary: 'Event subscriptions with delivery counts',
    extension: 'Listing subscriptions is not in the service\'s documentation.',
    params: PAGE,
    answer: documentedPage(
      object({
        ...hookProperties,
        disabled: bool,
        disabledAt: nullable(isoTime),
        disabledReason: nullable(str),
        deliveries: object({ pending: int, delivered: int, failed: int, cancelled: int, lastAttempt: nullable(ref('DeliveryAttempt')) }),
      }),
    ),
  },
  '/hook/delete': {
    tag: 'Hooks',
    summary: 'Remove an event subscription',
    extension: 'Removing subscriptions is not in the service\'s documentation.',
    params: { id: required('text', 'Hook id.') },
    answer: ok({ id: str }),
  },
  '/hook/deliveries': {
    tag: 'Hooks',
    summary: 'Delivery history, newest first, with every attempt',
    extension: 'Delivery history is not in the service\'s documentation.',
    params: {
      hook: optional('text', 'One hook.'),
      status: optional('text', 'pending, delivered, failed or cancelled.'),
      event: optional('text', 'One event id.'),
      ...PAGE,
    },
    answer: documentedPage(ref('Delivery')),
  },
};
