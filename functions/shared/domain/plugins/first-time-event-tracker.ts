import type { BuiltInPlugin, PluginEvent, PluginMeta } from './types';

/**
 * PostHog's First Time Event Tracker (first-time-event-tracker): for the listed events, marks whether
 * this is the first such event in the project (`is_first_event_ever`) and for its distinct id
 * (`is_first_event_for_user`), remembering both in the plugin config's storage. It knows only events
 * ingested while it was enabled.
 */

const NO_STORAGE = 'The First Time Event Tracker needs plugin storage, which this runtime does not provide';

async function processEvent(event: PluginEvent, meta: PluginMeta<ReadonlySet<string>>): Promise<PluginEvent> {
  if (!meta.state.has(event.event)) return event;
  if (!meta.storage) throw new Error(NO_STORAGE);
  const properties = (event.properties ??= {});
  const eventKey = event.event;
  const userKey = `${event.event}_${event.distinct_id}`;
  const seenBefore = await meta.storage.get(eventKey, undefined);
  const seenBeforeForUser = await meta.storage.get(userKey, undefined);
  properties['is_first_event_ever'] = !seenBefore;
  properties['is_first_event_for_user'] = !seenBeforeForUser;
  // Writes only on a user's first such event: an event seen before for the user was seen before at all.
  if (!seenBeforeForUser) {
    await meta.storage.set(userKey, true);
    if (!seenBefore) await meta.storage.set(eventKey, true);
  }
  return event;
}

export const firstTimeEventTrackerPlugin: BuiltInPlugin<ReadonlySet<string>> = {
  id: 9,
  name: 'First Time Event Tracker',
  description: 'Track if a given event is the first event of this type for a user.',
  url: 'https://github.com/PostHog/first-time-event-tracker',
  config_schema: [
    {
      markdown:
        '\n\n# Important!\nThis plugin will only work on events ingested **after** the plugin was enabled. This means it **will** register events as being the first if there were events that occured **before** it was enabled. To mitigate this, you could consider renaming the relevant events and creating an [action](https://posthog.com/docs/features/actions) that matches both the old event name and the new one.\n',
    },
    {
      key: 'events',
      name: 'List of events to track first time occurences on:',
      type: 'string',
      default: '',
      hint: 'Separate events with commas, without using spaces, like so: `event1,event2,event3`',
      required: true,
    },
  ],
  capabilities: { jobs: [], methods: ['setupPlugin', 'processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  // `split` of a missing value throws, so a config without the list fails to load, as in PostHog.
  setup: (config) => new Set((config['events'] as string).split(',')),
  processEvent,
};
