import type { SandboxContext } from '../api/endpoint';
import { directory, findStage, type CrmStage } from './directory';
import { startTriggeredChains } from './messagingChains';
import { addTags, removeTags, saveSubscriber, subscriberCard, type Subscriber } from './subscribers';

export interface StageMove {
	stage: string;
	previous: string | null;
	/** True when entering the stage started a chain triggered by the stage's tag. */
	chains: boolean;
	changed: boolean;
}

/**
 * Moves a subscriber to a funnel stage: the previous stage's tag goes, the new stage's tag comes,
 * chains triggered by that tag start, and `subscriber.stage` is announced. Setting the stage the
 * subscriber is already in changes nothing and announces nothing.
 */
export function moveToStage(context: SandboxContext, card: Subscriber, stage: CrmStage): StageMove {
	const previous = card.stage;
	if (previous === stage.name) return { stage: stage.name, previous, chains: false, changed: false };
	const previousStage = previous === null ? undefined : findStage(context.store, previous);
	if (previousStage) removeTags(card, [previousStage.tag]);
	addTags(card, [stage.tag]);
	card.stage = stage.name;
	saveSubscriber(context.store, card);
	const chains = startTriggeredChains(context, card, [stage.tag]);
	context.events.emit('subscriber.stage', { subscriber: subscriberCard(card), stage: stage.name, previous });
	return { stage: stage.name, previous, chains, changed: true };
}

/** Stages in funnel order. */
export function orderedStages(context: SandboxContext): CrmStage[] {
	return [...directory(context.store).stages].sort((a, b) => a.order - b.order);
}
