import { createHmac, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Container } from '@n8n/di';
import express from 'express';
import { InstanceSettings, WebhookContext } from 'n8n-core';
import type { INodeExecutionData, IRunExecutionData, IWebhookData } from 'n8n-workflow';
import { ApplicationError, Workflow } from 'n8n-workflow';
import { MessengerBotBuilder } from '../../nodes/MessengerBotBuilder/MessengerBotBuilder.node';
import type { claimAnswer } from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/binding';
import { harnessAdditionalData } from './additionalData';
import { NODE_NAME, type NodeRunner } from './nodeRun';
import type { RunResult, WorkflowDefinition } from './runWorkflow';

/** What a request to a resume address got back. */
export interface Tap {
	status: number;
	body: string;
	headers: Headers;
	/** What the node handed n8n to resume the execution with, if anything. */
	resumedWith?: INodeExecutionData[];
}

/** A waiting execution as n8n stores it: its data as JSON; `running` once n8n resumed it. */
export interface StoredExecution {
	result: RunResult;
	data: string;
	/** The workflow it runs and its waiting node: by default the runner's two-node workflow and its node. */
	workflow?: WaitingWorkflow;
	running?: boolean;
	/** What the node handed n8n to resume the execution with, once it did. */
	resumedWith?: INodeExecutionData[];
}

/** A workflow of one's own that waits at `nodeName`. */
export interface WaitingWorkflow {
	definition: WorkflowDefinition;
	nodeName: string;
}

/** A request with this header is handled by another n8n process: a second copy of the node's modules. */
export const OTHER_PROCESS_HEADER = 'x-test-process';

/** The node as one n8n process holds it: its webhook, and its in-process claims on answers. */
export interface NodeProcess {
	nodeType: MessengerBotBuilder;
	claimAnswer: typeof claimAnswer;
}

/**
 * The node's modules as another n8n process holds them (several webhook processes behind a load balancer), each with
 * in-process memory of its own.
 */
export function loadNodeApart(): NodeProcess {
	let loaded: NodeProcess | undefined;
	jest.isolateModules(() => {
		const node = jest.requireActual<typeof import('../../nodes/MessengerBotBuilder/MessengerBotBuilder.node')>(
			'../../nodes/MessengerBotBuilder/MessengerBotBuilder.node',
		);
		const binding = jest.requireActual<
			typeof import('../../nodes/MessengerBotBuilder/actions/message/sendAndWait/binding')
		>('../../nodes/MessengerBotBuilder/actions/message/sendAndWait/binding');
		loaded = { nodeType: new node.MessengerBotBuilder(), claimAnswer: binding.claimAnswer };
	});
	if (!loaded) throw new ApplicationError('jest.isolateModules did not load the node');
	return loaded;
}

/** What n8n's waiting-webhook handler checks: HMAC-SHA256 of path + query without the signature, with the instance secret. */
export function signatureIsValid(url: string): boolean {
	const parsed = new URL(url);
	const signature = parsed.searchParams.get('signature');
	parsed.searchParams.delete('signature');
	const expected = createHmac('sha256', Container.get(InstanceSettings).hmacSignatureSecret)
		.update(`${parsed.pathname}${parsed.search}`)
		.digest('hex');
	return signature === expected;
}

/**
 * n8n's resume addresses for the action node's waiting executions, over real HTTP on 127.0.0.1. Each request is
 * handed to the node's webhook in n8n-core's WebhookContext with the waiting execution's data (as n8n loads it from its
 * database, JSON), with the request body parsed as n8n parses forms. After a webhook that resumes, it moves the
 * execution from waiting to running as n8n 2.41.1 does, only if it is still waiting, and otherwise answers with n8n's
 * error. The rest of n8n's server (the link's signature check, its wait tracker) runs in the real-n8n e2e scenario.
 */
export class WaitingWebhookServer {
	/** Waiting executions by id. */
	readonly executions = new Map<string, StoredExecution>();
	/** What each resuming request handed n8n, as JSON, by the id its answer names. */
	private readonly resumes = new Map<string, string>();
	private readonly nodeType = new MessengerBotBuilder();
	/** The node in another n8n process: requests with OTHER_PROCESS_HEADER `other` go to it. */
	readonly otherProcess = loadNodeApart();
	private server?: Server;
	/** The server's address (`http://127.0.0.1:<port>`) once started. */
	origin = '';

	constructor(private readonly runner: NodeRunner) {}

	async start(): Promise<this> {
		const app = express();
		// n8n reads bodies up to N8N_PAYLOAD_SIZE_MAX, 16 MB by default.
		app.use(express.urlencoded({ extended: false, limit: '16mb' }));
		app.use(multipartAsN8n);
		app.all('/webhook-waiting/:execution/:node', (request, response) => {
			this.handle(request, response).catch((error: Error) => response.status(500).send(error.stack));
		});
		const server = app.listen(0, '127.0.0.1');
		this.server = server;
		await new Promise((resolve) => server.once('listening', resolve));
		this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		return this;
	}

	async close(): Promise<void> {
		const server = this.server;
		if (server) await new Promise((resolve) => server.close(resolve));
	}

	/** Keeps a run that stopped at its wait, as n8n stores it, under `executionId` (of `workflow`, when given). */
	keep(executionId: string, result: RunResult, workflow?: WaitingWorkflow): void {
		this.executions.set(executionId, { result, data: JSON.stringify(result.run.data), workflow });
	}

	/** Requests `url` (a resume link the node made) at this server, without following redirects. */
	async tap(url: string, init: RequestInit = {}): Promise<Tap> {
		const link = new URL(url);
		const response = await fetch(`${this.origin}${link.pathname}${link.search}`, { redirect: 'manual', ...init });
		const resumed = this.resumes.get(response.headers.get('x-test-resumed') ?? '');
		return {
			status: response.status,
			body: await response.text(),
			headers: response.headers,
			resumedWith: resumed ? JSON.parse(resumed) : undefined,
		};
	}

	private async handle(request: express.Request, response: express.Response): Promise<void> {
		const stored = this.executions.get(String(request.params.execution));
		if (!stored) {
			response.status(404).end();
			return;
		}
		const context = this.webhookContext(request, response, stored);
		// n8n 2.41.1 reflects the request's Origin before it calls the node (WebhookRequestHandler.setupCorsHeaders).
		if (request.headers.origin) response.setHeader('Access-Control-Allow-Origin', request.headers.origin);
		const serving = request.headers[OTHER_PROCESS_HEADER] === 'other' ? this.otherProcess.nodeType : this.nodeType;
		const result = await serving.webhook.call(context);
		if (result.workflowData) {
			// n8n 2.41.1 (webhook-helpers executeWebhook → WorkflowRunner.run → ActiveExecutions.add) moves the execution
			// from waiting to running only if it is still waiting; when another process moved it first, the request gets
			// n8n's error (ExecutionAlreadyResumingError, wrapped, sent by ResponseHelper.sendErrorResponse).
			if (stored.running) {
				response.status(500).json({ code: 0, message: 'There was a problem executing the workflow' });
				return;
			}
			stored.running = true;
			stored.resumedWith = result.workflowData[0];
			// Kept here, not sent in a header: a long answer would overflow the client's header limit.
			const resumeId = randomUUID();
			this.resumes.set(resumeId, JSON.stringify(result.workflowData[0]));
			response.setHeader('x-test-resumed', resumeId);
		}
		// n8n sends the node's page itself once the execution resumed (the e2e covers that part).
		if (!result.noWebhookResponse && !response.headersSent) response.status(200).send(result.webhookResponse);
	}

	/** The context n8n gives the node's webhook for a request to a waiting execution's resume address. */
	private webhookContext(request: express.Request, response: express.Response, stored: StoredExecution) {
		const definition = stored.workflow?.definition ?? this.runner.workflow({});
		const nodeName = stored.workflow?.nodeName ?? NODE_NAME;
		const workflow = new Workflow({
			id: 'wf',
			nodes: definition.nodes,
			connections: definition.connections,
			active: true,
			nodeTypes: this.runner.harness.nodeTypes,
			settings: { executionOrder: 'v1' },
		});
		const description = this.nodeType.description.webhooks?.find((webhook) => webhook.httpMethod === request.method);
		if (!description) throw new ApplicationError(`The node has no webhook for ${request.method}`);
		const credentialsHelper = this.runner.harness.credentials;
		const webhookData: IWebhookData = {
			httpMethod: request.method as IWebhookData['httpMethod'],
			node: nodeName,
			path: String(request.params.node),
			webhookDescription: description,
			workflowId: 'wf',
			workflowExecuteAdditionalData: harnessAdditionalData({ credentialsHelper }),
		};
		const additionalData = harnessAdditionalData({
			credentialsHelper,
			executionId: String(request.params.execution),
			http: { httpRequest: request, httpResponse: response },
		});
		const node = workflow.getNode(nodeName);
		if (!node) throw new ApplicationError(`The workflow has no node ${nodeName}`);
		const runExecutionData = JSON.parse(stored.data) as IRunExecutionData;
		return new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], runExecutionData);
	}
}

/** Multipart forms as n8n parses them: { data: fields, files }. */
async function multipartAsN8n(request: express.Request, _response: express.Response, next: express.NextFunction) {
	if (!request.headers['content-type']?.startsWith('multipart/form-data')) return next();
	const form = await new Response(request as unknown as ReadableStream, {
		headers: { 'content-type': request.headers['content-type'] },
	}).formData();
	request.body = {
		data: Object.fromEntries([...form.entries()].map(([key, value]) => [key, String(value)])),
		files: {},
	};
	next();
}
