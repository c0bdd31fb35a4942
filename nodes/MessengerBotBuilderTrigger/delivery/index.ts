export { verifyDelivery, JWT_CLOCK_TOLERANCE_SECONDS, MAX_BODY_BYTES } from './verifyDelivery';
export type { DeliveryRequest, VerifyOptions, HeaderValue } from './verifyDelivery';
export { hookSecretBytes, HOOK_SECRET_PREFIX } from './keys';
export type { VerificationKeys } from './keys';
export type { Verdict, RejectionCode, DeliveryEvent, SignatureScheme } from './verdict';
