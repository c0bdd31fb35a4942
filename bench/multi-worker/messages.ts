/** The text of one item's message: tells the service's records apart per worker and item. */
export const messageText = (worker: number, item: number) => `worker ${worker} item ${item}`;
