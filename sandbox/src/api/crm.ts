import { moveToStage, orderedStages } from '../domain/crmStages';
import { findStage } from '../domain/directory';
import { withDueSteps } from '../domain/messagingChains';
import { subscriberCard, subscribersState, type Subscriber } from '../domain/subscribers';
import { optionalBot, requireSubscriber } from '../domain/subscribersParams';
import { notFound } from '../http/errors';
import type { ApiCall, Endpoint, SandboxModule } from './endpoint';

function setStage(call: ApiCall) {
	const card = requireSubscriber(call);
	const name = call.params.requiredString('stage');
	const stage = findStage(call.store, name);
	if (!stage) {
		const known = orderedStages(call)
			.map((candidate) => candidate.name)
			.join(', ');
		throw notFound(`Stage "${name}" (stages: ${known})`, 'stage');
	}
	const move = moveToStage(call, card, stage);
	return {
		ok: true,
		subscriber: subscriberCard(card),
		stage: move.stage,
		previous: move.previous,
		chains: move.chains,
	};
}

const briefCard = (card: Subscriber) => ({
	id: card.id,
	botid: card.botid,
	clientid: card.clientid,
	messenger: card.messenger,
	name: card.name,
});

/** Subscribers per stage, in funnel order, and those in no stage (or a stage no longer configured). */
function board(call: ApiCall) {
	const bot = optionalBot(call);
	const cards = subscribersState(call.store).subscribers.filter((card) =>
		bot ? card.botid === bot.id : call.botAllowed(card.botid),
	);
	const stages = orderedStages(call);
	const known = new Set(stages.map((stage) => stage.name));
	const column = (members: Subscriber[]) => ({ count: members.length, subscribers: members.map(briefCard) });
	return {
		stages: stages.map((stage) => ({
			name: stage.name,
			tag: stage.tag,
			order: stage.order,
			...column(cards.filter((card) => card.stage === stage.name)),
		})),
		none: column(cards.filter((card) => card.stage === null || !known.has(card.stage))),
		total: cards.length,
	};
}

const endpoints: Endpoint[] = [
	{ path: '/crm/stage/set', methods: 'POST', scope: 'crm:write', handle: setStage },
	{ path: '/crm/board', methods: 'GET or POST', scope: 'crm:read', handle: board },
];

/** CRM funnel: stage set and board. */
export const crmModule: SandboxModule = {
	name: 'crm',
	endpoints: endpoints.map(withDueSteps),
};
