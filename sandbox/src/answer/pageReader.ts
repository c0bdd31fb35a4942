/**
 * Reads an HTML page as a browser shows it to the person, as far as answering a question needs: the title and
 * heading, the text of its paragraphs, and its forms with their controls, submit buttons and labels. It reads the
 * plain HTML that answer pages are (no script runs); a form inside an `aria-hidden` element is marked hidden: a
 * person neither sees nor reaches it, a program that presses every control does.
 */

export interface SelectOption {
	value: string;
	text: string;
	selected: boolean;
}

export interface FormControl {
	kind: 'input' | 'textarea' | 'select';
	name: string;
	/** An input's type (`text` when it has none); `textarea` or `select` for those. */
	type: string;
	value: string;
	id?: string;
	required: boolean;
	options: SelectOption[];
}

export interface SubmitButton {
	text: string;
	name?: string;
	value?: string;
}

export interface PageForm {
	method: string;
	/** The form's `action` as written; empty: the page's own address. */
	action: string;
	enctype: string;
	/** Inside an element marked `aria-hidden="true"`: no person sees or reaches it. */
	hidden: boolean;
	/** The page's `data-not-before` (epoch ms): the earliest time a confirmation counts, when the page says. */
	notBefore?: number;
	controls: FormControl[];
	submits: SubmitButton[];
}

export interface ReadPage {
	title: string;
	heading: string;
	paragraphs: string[];
	forms: PageForm[];
	/** A label's text by the id of the control it is for. */
	labels: Map<string, string>;
}

const VOID_ELEMENTS = new Set([
	'area',
	'base',
	'br',
	'col',
	'embed',
	'hr',
	'img',
	'input',
	'link',
	'meta',
	'source',
	'wbr',
]);
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'textarea', 'title']);
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<!--[\s\S]*?-->|<![^>]*>/g;
const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** The text an HTML text or attribute value stands for. */
export function decodeEntities(text: string): string {
	return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (whole, entity: string) => {
		if (entity[0] === '#') {
			const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1));
			return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
		}
		return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
	});
}

function attributesOf(source: string): Map<string, string> {
	const attributes = new Map<string, string>();
	for (const match of source.matchAll(ATTRIBUTE)) {
		const name = match[1].toLowerCase();
		if (!attributes.has(name)) attributes.set(name, decodeEntities(match[2] ?? match[3] ?? match[4] ?? ''));
	}
	return attributes;
}

/** Text as a browser shows it: every run of white space one space, none at the ends. */
export const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

interface OpenElement {
	name: string;
	hidden: boolean;
}

interface Pending {
	attributes: Map<string, string>;
	text: string;
}

/** What has been read of a page so far, element by element. */
class PageBuilder {
	readonly page: ReadPage = { title: '', heading: '', paragraphs: [], forms: [], labels: new Map() };
	private readonly open: OpenElement[] = [];
	private form?: PageForm;
	private select?: FormControl;
	private option?: Pending;
	private button?: Pending;
	private label?: { for?: string; text: string };
	private paragraph?: string;
	private heading?: string;

	/** Text between tags: it belongs to every element open that keeps its text. */
	text(value: string): void {
		const decoded = decodeEntities(value);
		if (this.option) this.option.text += decoded;
		if (this.button) this.button.text += decoded;
		if (this.label) this.label.text += decoded;
		if (this.paragraph !== undefined) this.paragraph += decoded;
		if (this.heading !== undefined) this.heading += decoded;
	}

	/** The content of a title or a textarea, read as it is. */
	rawText(name: string, attributes: Map<string, string>, raw: string): void {
		if (name === 'title') this.page.title = collapse(decodeEntities(raw));
		if (name === 'textarea' && this.form)
			this.form.controls.push({
				kind: 'textarea',
				name: attributes.get('name') ?? '',
				type: 'textarea',
				// A browser drops the one line break that may follow the opening tag.
				value: decodeEntities(raw.replace(/^\r?\n/, '')),
				id: attributes.get('id'),
				required: attributes.has('required'),
				options: [],
			});
	}

	opened(name: string, attributes: Map<string, string>, selfClosing: boolean): void {
		if (!VOID_ELEMENTS.has(name) && !selfClosing)
			this.open.push({ name, hidden: attributes.get('aria-hidden') === 'true' });
		if (name === 'form') this.openForm(attributes);
		else if (name === 'input' && this.form) this.input(this.form, attributes);
		else if (name === 'select') this.select = control('select', 'select', attributes);
		else if (name === 'option') {
			this.closeOption();
			this.option = { attributes, text: '' };
		} else if (name === 'button') this.button = { attributes, text: '' };
		else if (name === 'label') this.label = { for: attributes.get('for'), text: '' };
		else if (name === 'p') this.paragraph = '';
		else if (name === 'h1') this.heading = '';
	}

	closed(name: string): void {
		const index = this.open.map((element) => element.name).lastIndexOf(name);
		if (index >= 0) this.open.length = index;
		if (name === 'option') this.closeOption();
		else if (name === 'select') this.closeSelect();
		else if (name === 'button') this.closeButton();
		else if (name === 'label' && this.label) {
			if (this.label.for) this.page.labels.set(this.label.for, collapse(this.label.text));
			this.label = undefined;
		} else if (name === 'p' && this.paragraph !== undefined) {
			if (collapse(this.paragraph)) this.page.paragraphs.push(collapse(this.paragraph));
			this.paragraph = undefined;
		} else if (name === 'h1' && this.heading !== undefined) {
			this.page.heading ||= collapse(this.heading);
			this.heading = undefined;
		} else if (name === 'form') this.form = undefined;
	}

	private openForm(attributes: Map<string, string>): void {
		const notBefore = Number(attributes.get('data-not-before'));
		this.form = {
			method: (attributes.get('method') ?? 'get').toUpperCase(),
			action: attributes.get('action') ?? '',
			enctype: attributes.get('enctype') ?? 'application/x-www-form-urlencoded',
			hidden: this.open.some((element) => element.hidden),
			notBefore: Number.isFinite(notBefore) && notBefore > 0 ? notBefore : undefined,
			controls: [],
			submits: [],
		};
		this.page.forms.push(this.form);
	}

	private input(form: PageForm, attributes: Map<string, string>): void {
		const type = (attributes.get('type') ?? 'text').toLowerCase();
		if (type === 'submit')
			form.submits.push({
				text: attributes.get('value') ?? 'Submit',
				name: attributes.get('name'),
				value: attributes.get('value'),
			});
		else if (!['button', 'reset', 'image', 'file'].includes(type))
			form.controls.push(control('input', type, attributes));
	}

	private closeOption(): void {
		if (!this.option || !this.select) return;
		const optionText = collapse(this.option.text);
		this.select.options.push({
			value: this.option.attributes.get('value') ?? optionText,
			text: optionText,
			selected: this.option.attributes.has('selected'),
		});
		this.option = undefined;
	}

	private closeSelect(): void {
		this.closeOption();
		if (this.select && this.form) {
			const chosen = this.select.options.find((candidate) => candidate.selected) ?? this.select.options[0];
			this.select.value = chosen?.value ?? '';
			this.form.controls.push(this.select);
		}
		this.select = undefined;
	}

	private closeButton(): void {
		if (!this.button) return;
		const { attributes, text } = this.button;
		if ((attributes.get('type') ?? 'submit').toLowerCase() === 'submit' && this.form)
			this.form.submits.push({ text: collapse(text), name: attributes.get('name'), value: attributes.get('value') });
		this.button = undefined;
	}
}

/** An input or a select as a form control, with its value as written. */
function control(kind: FormControl['kind'], type: string, attributes: Map<string, string>): FormControl {
	return {
		kind,
		name: attributes.get('name') ?? '',
		type,
		value: kind === 'select' ? '' : (attributes.get('value') ?? ''),
		id: attributes.get('id'),
		required: attributes.has('required'),
		options: [],
	};
}

/** Reads a page; text outside any recognised element is ignored. */
export function readPage(html: string): ReadPage {
	const builder = new PageBuilder();
	const lower = html.toLowerCase();
	let at = 0;
	const tags = new RegExp(TAG.source, 'g');
	for (let match = tags.exec(html); match; match = tags.exec(html)) {
		builder.text(html.slice(at, match.index));
		at = tags.lastIndex;
		if (!match[2]) continue;
		const name = match[2].toLowerCase();
		if (match[1] === '/') {
			builder.closed(name);
			continue;
		}
		const attributes = attributesOf(match[3]);
		if (RAW_TEXT_ELEMENTS.has(name)) {
			const end = lower.indexOf(`</${name}`, at);
			builder.rawText(name, attributes, html.slice(at, end < 0 ? html.length : end));
			at = end < 0 ? html.length : html.indexOf('>', end) + 1 || html.length;
			tags.lastIndex = at;
			continue;
		}
		builder.opened(name, attributes, match[3].trimEnd().endsWith('/'));
	}
	builder.text(html.slice(at));
	return builder.page;
}
