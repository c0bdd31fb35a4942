export { DeliveryError, isDeliveryError, DELIVERY_ERROR_CODES, DELIVERY_ERROR_STATUS } from './core';
export type { DeliveryErrorCode } from './core';
