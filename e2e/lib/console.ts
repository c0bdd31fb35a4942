/** The sandbox's console in the browser, used the way a developer watching an integration would. */
import { launchChromium } from './browser.ts';

export interface ConsolePayment {
	botid: string;
	clientid: string;
	amount: number;
	currency: string;
}

/** Simulates a payment with the console's Payment form; returns what the page reported. */
export async function payFromConsole(sandboxUrl: string, payment: ConsolePayment): Promise<string> {
	const browser = await launchChromium();
	try {
		const page = await browser.newPage();
		await page.goto(`${sandboxUrl}/`);
		await page.waitForSelector('body[data-loaded="overview"]');
		await page.selectOption('#form-payment select[name="botid"]', payment.botid);
		await page.fill('#form-payment input[name="clientid"]', payment.clientid);
		await page.fill('#form-payment input[name="amount"]', String(payment.amount));
		await page.fill('#form-payment input[name="currency"]', payment.currency);
		await page.click('#form-payment button[type="submit"]');
		await page.waitForSelector('#event-result.ok, #event-result.bad');
		const result = (await page.textContent('#event-result')) ?? '';
		if (!result.includes('payment.success')) throw new Error(`the console did not make the payment: ${result}`);
		return result;
	} finally {
		await browser.close();
	}
}
