/**
 * Text put into a page's HTML. Every page may show what a request sent (a typed answer, a form's values), so escaping
 * must cost the same whatever the text holds: five native replaces with fixed replacements, each one pass over the text
 * with no function called per character (a callback per match let a text of nothing but `<` hold up n8n's event loop).
 * The numeric references are the same ones the pages always used.
 */
const SPECIAL = /[&<>"']/;

export function escapeHtml(value: string): string {
	if (!SPECIAL.test(value)) return value;
	return value
		.replace(/&/g, '&#38;')
		.replace(/</g, '&#60;')
		.replace(/>/g, '&#62;')
		.replace(/"/g, '&#34;')
		.replace(/'/g, '&#39;');
}
