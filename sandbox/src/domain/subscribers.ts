import type { Store } from '../store';

/** A chain's variables for one subscriber: name -> value. */
export type Variables = Record<string, string | number | boolean>;

/** A subscriber of one bot, identified by botid + clientid (a bot works in one messenger). */
export interface Subscriber {
  /** The internal card number (`subscriber` in /subscriber/get). */
  id: number;
  botid: string;
  clientid: string;
  messenger: string;
  name: string;
  username: string;
  note: string;
  tags: string[];
  /** False when the subscriber left the bot (unsubscribed in the messenger). */
  active: boolean;
  /** Blocked by the account: the bot sends it nothing. */
  blocked: boolean;
  /** The subscriber wrote to the bot at least once. */
  dialog: boolean;
  /** Subscription time, ISO 8601 UTC. */
  subscribed: string;
  /** Name of the CRM funnel stage, or null. */
  stage: string | null;
  /** Variables grouped by chain code. */
  variables: Record<string, Variables>;
}

interface SubscribersState {
  subscribers: Subscriber[];
  nextId: number;
}

export function subscribersState(store: Store): SubscribersState {
  return store.slice<SubscribersState>('subscribers', () => ({ subscribers: [], nextId: 1 }));
}

export function findSubscriber(store: Store, botid: string, clientid: string): Subscriber | undefined {
  return subscribersState(store).subscribers.find((card) => card.botid === botid && card.clientid === clientid);
}

export function findSubscriberById(store: Store, id: number): Subscriber | undefined {
  return subscribersState(store).subscribers.find((card) => card.id === id);
}

/** The card as the API shows it (a copy: later changes do not leak into answers or events). */
export function subscriberCard(card: Subscriber) {
  return structuredClone(card);
}

export type SubscriberCard = ReturnType<typeof subscriberCard>;

export interface NewSubscriber {
  botid: string;
  clientid: string;
  messenger: string;
  name?: string;
  username?: string;
  note?: string;
  subscribed: string;
  dialog?: boolean;
}

export function addSubscriber(store: Store, fields: NewSubscriber): Subscriber {
  const state = subscribersState(store);
  const card: Subscriber = {
    id: state.nextId++,
    botid: fields.botid,
    clientid: fields.clientid,
    messenger: fields.messenger,
    name: fields.name ?? '',
    username: fields.username ?? '',
    note: fields.note ?? '',
    tags: [],
    active: true,
    blocked: false,
    dialog: fields.dialog ?? false,
    subscribed: fields.subscribed,
    stage: null,
    variables: {},
  };
  state.subscribers.push(card);
  store.changed();
  return card;
}

export function removeSubscriber(store: Store, card: Subscriber): void {
  const state = subscribersState(store);
  state.subscribers = state.subscribers.filter((candidate) => candidate.id !== card.id);
  store.changed();
}

/** Adds the tags the card lacks; returns those that were new. */
export function addTags(card: Subscriber, tags: string[]): string[] {
  const added = [...new Set(tags)].filter((tag) => !card.tags.includes(tag));
  card.tags.push(...added);
  return added;
}

export function removeTags(card: Subscriber, tags: string[]): void {
  card.tags = card.tags.filter((tag) => !tags.includes(tag));
}

/** Writes variables into one chain's group; a null value removes the variable. */
export function writeVariables(card: Subscriber, chaincode: string, data: Record<string, Variables[string] | null>): void {
  const group = (card.variables[chaincode] ??= {});
  for (const [name, value] of Object.entries(data)) {
    if (value === null) delete group[name];
    else group[name] = value;
  }
}
