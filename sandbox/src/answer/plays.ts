import { invalidParam } from '../http/errors';
import { fetchAsPreview, openAsBrowser, PREVIEW_AGENTS, pressSubmit, type FormValues, type Step } from './linkBrowser';
import { collapse, type FormControl, type PageForm, type ReadPage } from './pageReader';

/**
 * What the sandbox can do with the link buttons of a message, as the people and programs that meet them do: the
 * subscriber who opens one and answers on its page, a link preview that only fetches, and a mail scanner's headless
 * browser that opens every link and presses every control in the page's order.
 */

/** What the subscriber gives on the page: a text (a page with one text box) or form values by label. */
export interface SubscriberAnswer {
	text?: string;
	fields?: Record<string, string | number | null>;
	/** How long the subscriber looks at the page before pressing; by default until the page says a press counts. */
	afterMs?: number;
}

export interface Play {
	steps: Step[];
}

/** When a page does not say from when a press counts, a person reads it this long. */
const READING_MS = 1_600;
/** Pressed this long after the page's own "not before", so a clock a little behind still counts. */
const MARGIN_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The text of a control's label as the person reads it, without the mark of a required field. */
const labelOf = (page: ReadPage, control: FormControl) =>
	control.id === undefined ? undefined : page.labels.get(control.id)?.replace(/\s*\*$/, '');

/** The controls a person fills in: neither hidden nor without a name. */
const fillable = (form: PageForm) => form.controls.filter((control) => control.type !== 'hidden' && control.name);

const quoted = (names: Iterable<string>) => [...names].map((name) => `"${name}"`).join(', ');

function valueFor(control: FormControl, label: string, given: string | number | null): string {
	if (given === null) return '';
	const text = String(given);
	if (control.kind !== 'select') return text;
	// Options are matched as the person sees them: white space collapsed, as the browser shows it.
	const option = control.options.find((candidate) => candidate.text === collapse(text) && candidate.value !== '');
	if (!option)
		throw invalidParam(
			'fields',
			`gives "${text}" for "${label}", which is not one of its options: ${quoted(control.options.filter((candidate) => candidate.value !== '').map((candidate) => candidate.text))}`,
		);
	return option.value;
}

/** The values the person sends: the form's own values, with the text or the fields they typed in. */
function fill(page: ReadPage, form: PageForm, answer: SubscriberAnswer): FormValues {
	const values = new Map(form.controls.map((control) => [control, control.value]));
	const typed = fillable(form);
	if (answer.text !== undefined) {
		const [box] = typed;
		if (typed.length !== 1 || (box.kind !== 'textarea' && box.type !== 'text'))
			throw invalidParam(
				'text',
				typed.length === 0
					? 'is given, but the page has no text box: it is answered by pressing its button'
					: `is given, but the page asks for fields: give them as "fields" by label (${quoted(typed.map((control) => labelOf(page, control) ?? control.name))})`,
			);
		values.set(box, answer.text);
	}
	if (answer.fields !== undefined) {
		const byLabel = new Map<string, FormControl>();
		for (const control of typed) byLabel.set(labelOf(page, control) ?? control.name, control);
		if (byLabel.size === 0)
			throw invalidParam('fields', 'is given, but the page has no fields: it is answered by pressing its button');
		for (const [label, given] of Object.entries(answer.fields)) {
			const control = byLabel.get(label);
			if (!control)
				throw invalidParam(
					'fields',
					`names "${label}", which the page does not ask for; it asks for ${quoted(byLabel.keys())}`,
				);
			values.set(control, valueFor(control, label, given));
		}
	}
	return form.controls
		.map((control) => [control.name, values.get(control) ?? ''] as [string, string])
		.filter(([name]) => name);
}

/** The form a person answers with: the first one they can see that has a button. */
const visibleForm = (page: ReadPage) => page.forms.find((form) => !form.hidden && form.submits.length > 0);

/**
 * Opens the link as the subscriber's phone does, waits as a person reading the page, then fills in and presses the
 * page's visible button. A page without a form to answer (an expired question, n8n's own answers) ends the play there.
 */
export async function answerAsSubscriber(url: string, answer: SubscriberAnswer): Promise<Play> {
	const opened = await openAsBrowser(url);
	const steps = [opened.step];
	const form = visibleForm(opened.page);
	if (!form) {
		if (answer.text !== undefined || answer.fields !== undefined)
			throw invalidParam(
				answer.text !== undefined ? 'text' : 'fields',
				`is given, but the page of the link asks nothing (HTTP ${opened.step.status}: ${opened.step.heading || 'no heading'})`,
			);
		return { steps };
	}
	const values = fill(opened.page, form, answer);
	const waitMs =
		answer.afterMs ??
		(form.notBefore === undefined ? READING_MS : Math.max(0, form.notBefore - Date.now()) + MARGIN_MS);
	await sleep(waitMs);
	const pressed = await pressSubmit(url, form, values, { ...form.submits[0], hidden: false });
	steps.push(pressed.step);
	return { steps };
}

/** Fetches each link as link previews do (GET and HEAD, each with a messenger's and a mail scanner's agent). */
export async function playPreview(urls: string[]): Promise<Play> {
	const steps: Step[] = [];
	for (const url of urls)
		for (const agent of PREVIEW_AGENTS)
			for (const method of ['GET', 'HEAD'] as const) steps.push((await fetchAsPreview(url, method, agent)).step);
	return { steps };
}

/** Every submit button of the page in document order, with its form. */
const pressables = (page: ReadPage) => page.forms.flatMap((form) => form.submits.map((submit) => ({ form, submit })));

/**
 * A scanner's headless browser ("detonating" links as mail and chat security does): opens each link and presses every
 * control of the page in document order, `pauseMs` after the page was shown, the link opened again for each press.
 */
export async function playScanner(urls: string[], pauseMs: number): Promise<Play> {
	const steps: Step[] = [];
	for (const url of urls) {
		let opened = await openAsBrowser(url);
		steps.push(opened.step);
		const count = pressables(opened.page).length;
		for (let index = 0; index < count; index++) {
			if (index > 0) {
				opened = await openAsBrowser(url);
				steps.push(opened.step);
			}
			const target = pressables(opened.page)[index];
			if (!target) break;
			await sleep(pauseMs);
			const values = target.form.controls.map((control) => [control.name, control.value] as [string, string]);
			const pressed = await pressSubmit(
				url,
				target.form,
				values.filter(([name]) => name),
				{
					...target.submit,
					hidden: target.form.hidden,
				},
			);
			steps.push(pressed.step);
		}
	}
	return { steps };
}
