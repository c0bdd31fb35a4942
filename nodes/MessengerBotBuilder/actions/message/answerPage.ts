import type { IDataObject, IWebhookDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

/** Query parameters of a resume link; n8n signs them with the rest of the link. */
export const ANSWER_PARAM = 'answer';
export const APPROVED_PARAM = 'approved';

/**
 * The webhook of Send and Wait for Response: n8n's resume URL of a waiting execution at this node
 * (`/webhook-waiting/<execution>/<node id>`). A restart webhook exists only while an execution waits
 * here; nothing is registered at the service, so the node has no webhook lifecycle (checkExists,
 * create, delete), like n8n's own nodes with this operation.
 */
export const answerWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'GET',
		responseMode: 'onReceived',
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	},
];

const escapeHtml = (value: string) =>
	value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(title: string, message: string): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, -apple-system, sans-serif; background: #f5f5f7; color: #1d1d1f; display: flex; min-height: 100vh; margin: 0; align-items: center; justify-content: center; }
main { background: #fff; border-radius: 12px; padding: 32px 40px; max-width: 420px; text-align: center; box-shadow: 0 2px 12px rgba(0, 0, 0, .08); }
h1 { font-size: 20px; margin: 0 0 12px; }
p { margin: 0; line-height: 1.5; }
</style>
</head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body>
</html>`;
}

function sendPage(context: IWebhookFunctions, status: number, title: string, message: string): void {
	const response = context.getResponseObject();
	response.status(status);
	response.setHeader('Content-Type', 'text/html; charset=utf-8');
	response.setHeader('Cache-Control', 'no-store');
	response.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
	response.send(page(title, message));
}

/**
 * The tap on an answer button of Send and Wait for Response. n8n has already checked the link's
 * signature (it covers the answer) and that this execution still waits at this node; this shows the
 * subscriber a confirmation and resumes the execution with the answer.
 */
export async function answerWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const query = this.getQueryData() as IDataObject;
	const answer = query[ANSWER_PARAM];
	if (typeof answer !== 'string') {
		sendPage(this, 400, 'Link not complete', 'This link does not carry an answer. Use the buttons of the message.');
		return { noWebhookResponse: true };
	}
	const data: IDataObject = { answer };
	if (query[APPROVED_PARAM] === 'true' || query[APPROVED_PARAM] === 'false') data.approved = query[APPROVED_PARAM] === 'true';
	data.timedOut = false;
	sendPage(this, 200, 'Thank you', `Your answer “${answer}” has been received. You can close this page.`);
	return { noWebhookResponse: true, workflowData: [[{ json: { data }, pairedItem: { item: 0 } }]] };
}
