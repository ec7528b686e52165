import { runInNewContext } from 'node:vm';
import { remoteConfig, remoteConfigScript } from '../../../functions/flags/remote-config';

describe('posthog-js remote config', () => {
  it('turns on gzip-js and autocapture, and nothing Flock does not serve', () => {
    expect(remoteConfig('phc_x', false)).toEqual({
      token: 'phc_x',
      supportedCompression: ['gzip', 'gzip-js'],
      hasFeatureFlags: false,
      captureDeadClicks: false,
      capturePerformance: false,
      autocapture_opt_out: false,
      autocaptureExceptions: false,
      sessionRecording: false,
      heatmaps: false,
      surveys: false,
      siteApps: [],
    });
  });

  it('config.js sets window._POSTHOG_REMOTE_CONFIG[token], keeping what was there', () => {
    // Prepare
    const config = remoteConfig('phc_x', true);
    const window = { _POSTHOG_REMOTE_CONFIG: { phc_other: { config: {}, siteApps: [] } } };

    // Act
    runInNewContext(remoteConfigScript('phc_x', config), { window });

    // Assess
    expect(window._POSTHOG_REMOTE_CONFIG).toEqual({
      phc_other: { config: {}, siteApps: [] },
      phc_x: { config, siteApps: [] },
    });
  });

  it('cannot be broken out of by what the JSON contains', () => {
    // Act
    const script = remoteConfigScript('</script><script>alert(1)</script>', remoteConfig('x', true));

    // Assess
    expect(script).not.toContain('</script>');
  });
});
