export {
	verifyDelivery,
	DEFAULT_CLOCK_SKEW_SECONDS,
	DEFAULT_MAX_BODY_BYTES,
	DEFAULT_TOLERANCE_SECONDS,
} from './verifyDelivery';
export type { DeliveryRequest, VerifyOptions, HeaderValue } from './verifyDelivery';
export { hookSecretBytes, HOOK_SECRET_PREFIX } from './keys';
export type { VerificationKeys, JwtAlgorithm } from './keys';
export { refusalStatus } from './verdict';
export type { Verdict, RejectionCode, DeliveryEvent, SignatureScheme } from './verdict';
