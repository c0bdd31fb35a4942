import { locator } from '../common/fields';
import { text } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const setStage = subscriberOperation({
	value: 'setStage',
	name: 'Set Stage',
	action: 'Move a subscriber to a CRM funnel stage',
	description: "Sets the subscriber's funnel stage; a chain triggered by the stage's tag starts by itself",
	method: 'POST',
	path: '/crm/stage/set',
	properties: [
		locator('stage', 'Stage', 'searchStages', {
			placeholder: 'e.g. Qualified',
			// Stages have no IDs: the service takes the stage's name.
			idLabel: 'By Name',
			description: 'The funnel stage, by name. Pick it from the list, or type its name.',
		}),
	],
	params(itemIndex) {
		return { stage: text.call(this, 'stage', itemIndex, true) };
	},
});
