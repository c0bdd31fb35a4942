/** `filename*=UTF-8''…` is percent-encoded (RFC 6266); a plain `filename="…"` is taken as it is (`100%.json`). */
export function fileNameOf(disposition: string | undefined, webAppId: string): string {
	const encoded = disposition && /filename\*=(?:UTF-8|ISO-8859-1)?'[^']*'([^;]+)/i.exec(disposition);
	const plain = disposition && /filename="?([^";]+)"?/i.exec(disposition);
	let name = '';
	if (encoded) {
		try {
			name = decodeURIComponent(encoded[1].trim());
		} catch {
			name = '';
		}
	}
	if (!name && plain) name = plain[1];
	name = name.replace(/[/\\]/g, '_').trim();
	return name || `catalog-${webAppId}.json`;
}
