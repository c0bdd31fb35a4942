export { signDelivery, generateHookSecret, DEFAULT_ISSUER, JWT_LIFETIME_SECONDS } from './sign';
export type { SignDeliveryInput, DeliverySignatureHeaders, AsymmetricJwtKey } from './sign';
export { decodeHookSecret, HOOK_SECRET_PREFIX } from './secret';
