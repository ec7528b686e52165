/**
 * The preset dictionary event properties are deflated with (attribute `pd` of an event item, see
 * events.ts): PostHog's standard property vocabulary, as the JSON of stored properties spells it. A
 * dictionary gives deflate earlier text to refer back to, so the keys every event repeats (and values
 * such as `"$lib":"web"`) cost a few bits from the first occurrence on instead of their full length.
 *
 * Sources: what posthog-js, posthog-node, posthog-python and the mobile SDKs send, what Flock adds
 * (`$ip`, `$set_once.$initial_*`) and what the processEvent plugins write: GeoIP (`$geoip_*` in its
 * order, and again in `$set` / `$set_once` after the null defaults, see plugins/geoip.ts), User Agent
 * Populator, Timestamp Parser and the chain's `$plugins_*` lists.
 *
 * Deflate finds closer text sooner (level 1 looks at few candidates), so the most frequent fragments
 * come last. FROZEN: items store what this exact text compressed, and reading them needs it byte for
 * byte. A changed dictionary needs a new attribute name (and this one kept to read the old items);
 * test/unit/shared/db/properties-dictionary.test.ts pins its SHA-256.
 */
const fragments: readonly string[] = [
  // Server SDKs, mobile SDKs, groups, flags, exceptions: less frequent.
  '"$lib":"posthog-python","$lib_version":"3.',
  '"$lib":"posthog-node","$lib_version":"4.',
  '"$lib":"posthog-ios","$lib":"posthog-android","$lib":"posthog-react-native","$lib":"posthog-flutter",',
  '"$app_name":"","$app_version":"","$app_build":"","$app_namespace":"","$device_manufacturer":"Apple",',
  '"$device_model":"","$device_name":"","$os_name":"iOS","$os_name":"Android","$locale":"en-US",',
  '"$network_wifi":true,"$network_cellular":false,"$network_carrier":"","$is_emulator":false,',
  '"$screen_name":"","$screen_density":"$groups":{"$group_type":"","$group_key":"","$group_set":{',
  '"$feature_flag":"","$feature_flag_response":true,"$feature_flag_payload":null,"$feature/',
  '"$active_feature_flags":[],"$exception_type":"Error","$exception_message":"","$exception_list":[',
  '"$exception_level":"error","$exception_personURL":"$survey_id":"","$survey_response":"',
  '"$event_type":"click","$ce_version":1,"$el_text":"","$elements_chain":"',
  '"$geoip_disable":true,"$anon_distinct_id":"","$user_id":"","$groupidentify","$identify","$create_alias"',
  // posthog-js: page leave and web vitals.
  '"$prev_pageview_last_scroll":0,"$prev_pageview_last_scroll_percentage":0,',
  '"$prev_pageview_max_scroll":0,"$prev_pageview_max_scroll_percentage":0,',
  '"$prev_pageview_last_content":0,"$prev_pageview_last_content_percentage":0,',
  '"$prev_pageview_max_content":0,"$prev_pageview_max_content_percentage":0,',
  '"$prev_pageview_pathname":"/","$prev_pageview_duration":0,"$prev_pageview_id":"',
  '"$web_vitals_LCP_value":"$web_vitals_CLS_value":"$web_vitals_FCP_value":"$web_vitals_INP_value":',
  // Common GeoIP values (continents, large countries, their time zones).
  '"South America","SA","Africa","AF","Asia","AS","Oceania","OC","Brazil","BR","India","IN","Canada","CA",',
  '"Australia/Sydney","Asia/Kolkata","America/Sao_Paulo","America/Toronto","Europe/Amsterdam","Europe/Madrid",',
  '"France","FR","Europe/Paris","Germany","DE","Europe/Berlin","United Kingdom","GB","Europe/London",',
  '"North America","NA","United States","US","America/Chicago","America/Los_Angeles","America/New_York",',
  '"Europe","EU",',
  // Timestamp Parser, Taxonomy, User Agent Populator.
  '"day_of_the_week":"Monday","day_of_the_week":"Tuesday","day_of_the_week":"Wednesday",',
  '"day_of_the_week":"Thursday","day_of_the_week":"Friday","day_of_the_week":"Saturday","day_of_the_week":"Sunday",',
  '"day":1,"month":1,"year":2026,"hour":1,"minute":1,',
  '"$device":"iPhone","$device_type":"Mobile","$device_type":"Tablet","$browser":"safari","$browser":"firefox",',
  '"$browser":"edge","$browser":"ios","$os":"iOS","$os":"Android OS","$os":"Windows 10","$os":"Linux",',
  '"$device":"","$device_type":"Desktop","$browser":"chrome","$browser_version":"1","$os":"Mac OS","$browser_type":"browser",',
  // posthog-js: session and configuration flags.
  '"$console_log_recording_enabled_server_side":false,"$session_recording_network_payload_capture":{',
  '"capturePerformance":true},"$autocapture_disabled_server_side":false,"$web_vitals_enabled_server_side":false,',
  '"$exception_capture_enabled_server_side":false,"$dead_clicks_enabled_server_side":false,',
  '"$session_recording_start_reason":"recording_initialized","$replay_script_config":null,',
  '"$sdk_debug_retry_queue_size":0,"$configured_session_timeout_ms":1800000,"$lib_rate_limit_remaining_tokens":',
  '"$session_entry_url":"https://","$session_entry_host":"","$session_entry_pathname":"/",',
  '"$session_entry_referrer":"$direct","$session_entry_referring_domain":"$direct",',
  '"$session_entry_utm_source":"","$session_entry_utm_medium":"","$session_entry_utm_campaign":"",',
  '"$initial_person_info":{"r":"$direct","u":"https://',
  '"utm_source":"google","utm_medium":"cpc","utm_campaign":"","utm_content":"","utm_term":"","gclid":"","fbclid":"',
  '"$is_identified":false,"$process_person_profile":true,"$pageview_id":"',
  '"$browser_language":"en-US","$browser_language_prefix":"en","$timezone":"Europe/',
  '"$raw_user_agent":"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/',
  '"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/',
  '"$useragent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/',
  '.0.0.0 Safari/537.36","$os":"Windows","$os_version":"10.0","$browser":"Firefox","$browser":"Safari","$browser":"Mobile Safari",',
  '"$os":"Mac OS X","$os_version":"10.15.7","$browser":"Chrome","$device_type":"Desktop","$timezone":"America/',
  '"$viewport_height":1080,"$viewport_width":1920,"$insert_id":"","$time":17,"title":"","token":"phc_',
  // The chain's lists and GeoIP: every event of a project with plugins.
  '"$plugins_succeeded":["GeoIP (1)","User Agent Populator (2)","Taxonomy Plugin (3)","Timestamp Parser (4)",',
  '"Property Flattener Plugin (5)"],"$plugins_failed":[],"$plugins_deferred":[],"$ip":"',
  '"$geoip_city_name":"","$geoip_city_confidence":1,"$geoip_country_name":"","$geoip_country_code":"",',
  '"$geoip_country_confidence":1,"$geoip_continent_name":"","$geoip_continent_code":"","$geoip_postal_code":"",',
  '"$geoip_postal_code_confidence":1,"$geoip_latitude":0,"$geoip_longitude":0,"$geoip_accuracy_radius":1000,',
  '"$geoip_time_zone":"","$geoip_subdivision_1_code":"","$geoip_subdivision_1_name":"","$geoip_subdivision_1_confidence":1,',
  '"$geoip_subdivision_2_code":"","$geoip_subdivision_2_name":"","$geoip_subdivision_2_confidence":1,',
  '"$set_once":{"$initial_geoip_city_name":"","$initial_geoip_city_confidence":null,',
  '"$initial_geoip_subdivision_2_name":null,"$initial_geoip_subdivision_2_code":null,',
  '"$initial_geoip_subdivision_1_name":"","$initial_geoip_subdivision_1_code":"",',
  '"$initial_geoip_country_name":"","$initial_geoip_country_code":"","$initial_geoip_continent_name":"",',
  '"$initial_geoip_continent_code":"","$initial_geoip_postal_code":null,"$initial_geoip_latitude":0,',
  '"$initial_geoip_longitude":0,"$initial_geoip_accuracy_radius":1000,"$initial_geoip_time_zone":"",',
  '"$initial_utm_source":"","$initial_utm_medium":"","$initial_utm_campaign":"","$initial_gclid":"",',
  '"$initial_current_url":"https://","$initial_referrer":"$direct","$initial_referring_domain":"$direct",',
  '"$initial_device_type":"Desktop","$initial_browser":"Chrome","$initial_browser_version":1,"$initial_os":"Mac OS X"},',
  '"$set":{"$geoip_city_name":"","$geoip_city_confidence":null,',
  '"$geoip_subdivision_2_name":null,"$geoip_subdivision_2_code":null,',
  '"$geoip_subdivision_1_name":"","$geoip_subdivision_1_code":"",',
  '"$geoip_country_name":"","$geoip_country_code":"","$geoip_continent_name":"",',
  '"$geoip_continent_code":"","$geoip_postal_code":null,"$geoip_latitude":0,',
  '"$geoip_longitude":0,"$geoip_accuracy_radius":1000,"$geoip_time_zone":"",',
  // posthog-js on every event: the most frequent, last.
  '{"$os":"Mac OS X","$os_version":"","$browser":"Chrome","$device_type":"Desktop","$current_url":"https://',
  '","$host":"","$pathname":"/","$raw_user_agent":"","$browser_version":131,"$browser_language":"en-US",',
  '"$screen_height":1080,"$screen_width":1920,"$viewport_height":,"$viewport_width":,"$lib":"web","$lib_version":"1.',
  '","$insert_id":"","$time":1,"distinct_id":"","$device_id":"","$referrer":"$direct","$referring_domain":"$direct",',
  '"$referrer":"https://www.google.com/","$referring_domain":"www.google.com",',
  '"$session_id":"","$window_id":"","$pageview_id":"","token":"","$set":{},"$set_once":{},',
  '":null,":true,":false,":"https://","',
];

/** The dictionary's bytes: hand them to deflateRaw and inflateRaw as `dictionary`. */
export const propertiesDictionary: Buffer = Buffer.from(fragments.join(''), 'utf8');
