import { buttonsField, messageTextField } from '../common/fields';
import { buttons, text } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const send = subscriberOperation({
	value: 'send',
	name: 'Send',
	action: 'Send a message to a subscriber',
	description:
		'Sends a text message, optionally with link buttons. Not repeated automatically if the answer is lost, so nothing is sent twice.',
	method: 'POST',
	path: '/message/send',
	properties: [messageTextField, buttonsField],
	params(itemIndex) {
		return { text: text.call(this, 'text', itemIndex, true), buttons: buttons.call(this, itemIndex) };
	},
});
