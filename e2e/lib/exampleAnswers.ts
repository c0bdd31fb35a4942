/**
 * How the demo subscriber (bot_tg, client id 100001) answers each Send and Wait example through the sandbox
 * (POST /sandbox/answer), and the reply the example then sends, written out from the example's own texts. The examples'
 * tests (jest in n8n-core's engine, the e2e's dev test in a real n8n) answer with it.
 */
export const EXAMPLE_SUBSCRIBER = { botid: 'bot_tg', clientid: '100001' };

export const EXAMPLE_ANSWERS: Record<string, { answer: Record<string, unknown>; reply: string }> = {
	'send-and-wait-approval.json': { answer: { button: 'Refund' }, reply: 'Your refund is on its way.' },
	'send-and-wait-choice.json': { answer: { button: 'Saturday' }, reply: 'Noted: we deliver saturday.' },
	'send-and-wait-free-text.json': {
		answer: { text: 'The box was wet' },
		reply: 'Thank you, we read: “The box was wet”. A person will get back to you today.',
	},
	'send-and-wait-form.json': {
		answer: { fields: { 'Street and number': 'Main Street 1', City: 'Berlin', Floor: 3, 'Delivery day': 'Saturday' } },
		reply: 'We deliver to Main Street 1, Berlin on a saturday.',
	},
};
