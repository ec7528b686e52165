import { bindOperations } from '../routes';
import { eventsApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { listEventsRoute } from './list';
import { retrieveEventRoute } from './retrieve';
import { propertyValuesRoute } from './values';

export const handler = createPrivateHttpHandler({
  config: eventsApiConfig(),
  routes: bindOperations('events', {
    events_list: listEventsRoute,
    events_values: propertyValuesRoute,
    events_retrieve: retrieveEventRoute,
  }),
});
