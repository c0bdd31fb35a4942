import { randomBytes } from 'node:crypto';
import { HOOK_SECRET_PREFIX } from '../../nodes/shared/delivery';

export {
	decodeHookSecret,
	decodeHookPublicKey,
	HOOK_SECRET_PREFIX,
	HOOK_PUBLIC_KEY_PREFIX,
} from '../../nodes/shared/delivery';

/** A new hook signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateHookSecret(): string {
	return HOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}
