import type { Resource } from '../types';
import { getBoard } from './getBoard.operation';
import { setStage } from './setStage.operation';

export const crm: Resource = {
	value: 'crm',
	name: 'CRM',
	description: 'The sales funnel: stages of subscribers',
	operations: [getBoard, setStage],
};
