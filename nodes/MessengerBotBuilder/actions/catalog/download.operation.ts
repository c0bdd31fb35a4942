import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { Operation } from '../types';
import { ItemWithBinary } from '../types';
import { webAppField, webAppOf } from '../common/catalog';
import { text } from '../common/params';
import { apiRequest } from '../../transport/request';
import { fileNameOf } from './fileName';

const MB = 1024 * 1024;
const DEFAULT_MAX_MB = 25;
const DOWNLOAD_TIMEOUT_MS = 60_000;

interface Download {
	body: AsyncIterable<Uint8Array> & { destroy?: () => void };
	headers: Record<string, string | string[] | undefined>;
	statusCode: number;
}

const header = (headers: Download['headers'], name: string) => {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
};

/** Reads the body, giving up (and closing the connection) as soon as it grows past `maxBytes`. */
async function readCapped(
	this: IExecuteFunctions,
	download: Download,
	maxMb: number,
	itemIndex: number,
): Promise<Buffer> {
	const maxBytes = Math.round(maxMb * MB);
	const tooLarge = (size: string) =>
		new NodeOperationError(this.getNode(), `The catalog file is larger than the limit of ${maxMb} MB (${size})`, {
			itemIndex,
			description: 'Raise "Max File Size (MB)" in the options, or use Get Download Link and fetch the file elsewhere.',
		});
	const announced = Number(header(download.headers, 'content-length'));
	if (Number.isFinite(announced) && announced > maxBytes) {
		download.body.destroy?.();
		throw tooLarge(`${announced} bytes announced`);
	}
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of download.body) {
		size += chunk.length;
		if (size > maxBytes) {
			download.body.destroy?.();
			throw tooLarge(`more than ${maxBytes} bytes received`);
		}
		chunks.push(Buffer.from(chunk));
	}
	return Buffer.concat(chunks);
}

/**
 * Catalog → Download: asks the service for a fresh link and follows it at once, with a plain
 * request (no credential: the API key never goes to the link's host), reading at most the size cap.
 */
export const download: Operation = {
	value: 'download',
	name: 'Download',
	action: 'Download the catalog file of a web app',
	description:
		'Gets a fresh link to the catalog file and downloads the file into binary data at once (links last 2 minutes)',
	properties: [
		webAppField,
		{
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			description: 'Name of the binary field the file goes to',
		},
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add option',
			default: {},
			description: 'Limits of the download',
			options: [
				{
					displayName: 'Max File Size (MB)',
					name: 'maxSizeMb',
					type: 'number',
					typeOptions: { minValue: 0.01, numberPrecision: 2 },
					default: DEFAULT_MAX_MB,
					description: 'A larger file is not downloaded: the item fails instead',
				},
			],
		},
	],
	async execute(itemIndex) {
		const webAppId = webAppOf(this, itemIndex);
		const field = text.call(this, 'binaryPropertyName', itemIndex, true);
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const maxMb = Number(options.maxSizeMb ?? DEFAULT_MAX_MB);
		const answer = await apiRequest.call(this, {
			method: 'GET',
			path: '/catalog/get',
			params: { webappid: webAppId },
			itemIndex,
		});
		const link = typeof answer.link === 'string' ? answer.link : '';
		if (!/^https?:\/\//i.test(link)) {
			throw new NodeOperationError(this.getNode(), 'The service answered without a download link', {
				itemIndex,
				description: JSON.stringify(answer).slice(0, 300),
			});
		}
		const response = (await this.helpers.httpRequest({
			method: 'GET',
			url: link,
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: DOWNLOAD_TIMEOUT_MS,
		})) as Download;
		if (response.statusCode < 200 || response.statusCode >= 300) {
			response.body.destroy?.();
			throw new NodeOperationError(
				this.getNode(),
				`The catalog file could not be downloaded: its link answered HTTP ${response.statusCode}`,
				{
					itemIndex,
					description:
						response.statusCode === 410 ? 'The link expired before it was followed; run the node again.' : undefined,
				},
			);
		}
		const content = await readCapped.call(this, response, maxMb, itemIndex);
		const fileName = fileNameOf(header(response.headers, 'content-disposition'), webAppId);
		const mimeType = (header(response.headers, 'content-type') ?? 'application/octet-stream').split(';')[0].trim();
		const binary: IBinaryData = await this.helpers.prepareBinaryData(content, fileName, mimeType);
		return new ItemWithBinary({ webappid: webAppId, fileName, mimeType, size: content.length }, { [field]: binary });
	},
};
