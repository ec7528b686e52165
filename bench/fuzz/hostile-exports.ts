import { validAuth } from './auth';
import { s3ExportPluginId, s3ExportSettings } from './fixtures';
import type { Fixtures, FuzzRequest } from './types';

/**
 * S3 Export destinations a hostile member would try: private, metadata, link-local, multicast and
 * reserved addresses in every spelling a URL parser accepts (decimal, octal, hex, IPv4-mapped IPv6,
 * percent-encoded, full-width digits, trailing dots), credentials and fragments that hide the host,
 * other schemes, and malformed URLs. Each is written as a config's `s3BucketEndpoint` by create
 * (POST, JSON and multipart) and by update (PATCH): the answer must be a quick 400 naming
 * `config__s3BucketEndpoint`, or, for a loopback address (which the local server allows), a
 * success. Only loopback and addresses refused before any connection appear here, and the configs
 * are written disabled: the run never connects anywhere else.
 */

const refused = [
  // Private, CGNAT and unique local.
  'http://10.0.0.1:9000',
  'https://10.0.0.1',
  'https://172.16.0.1',
  'https://192.168.0.1:443',
  'https://100.64.0.1',
  'https://[fd12:3456::1]',
  // The instance metadata service, IPv4 and IPv6, plain and mapped.
  'https://169.254.169.254/latest/meta-data/',
  'http://169.254.169.254',
  'https://[fd00:ec2::254]',
  'https://[::ffff:169.254.169.254]',
  'https://[::ffff:a9fe:a9fe]',
  'https://[0:0:0:0:0:ffff:a9fe:a9fe]',
  'https://[64:ff9b::a9fe:a9fe]',
  // Link-local, unspecified, multicast, broadcast, reserved.
  'https://169.254.1.1',
  'https://[fe80::1]',
  'https://[fe80::1%25eth0]',
  'https://0.0.0.0',
  'https://[::]',
  'https://224.0.0.1',
  'https://[ff02::1]',
  'https://255.255.255.255',
  'https://240.0.0.1',
  'https://[::127.0.0.1]',
  // Other spellings of 10.0.0.1 and 169.254.169.254 that URL parsers turn into them.
  'https://167772161',
  'https://0xa000001',
  'https://012.0.0.1',
  'https://10.1',
  'https://10.0.0.1.',
  'https://%31%30.0.0.1',
  'https://１０.０.０.１',
  'https://0xA9.0xFE.0xA9.0xFE',
  'https://2852039166',
  'HTTPS://10.0.0.1',
  'https:10.0.0.1',
  // The host hidden behind credentials or a fragment.
  'https://s3.amazonaws.com@10.0.0.1',
  'https://user:pass@10.0.0.1',
  'https://10.0.0.1#@s3.amazonaws.com',
  'https://10.0.0.1\\@s3.amazonaws.com',
  // Other schemes, and no URL at all.
  'file:///etc/passwd',
  'gopher://127.0.0.1:6379/_',
  'javascript:alert(1)',
  'ftp://10.0.0.1',
  '//10.0.0.1',
  'http://',
  'https://',
  'http://[::1',
  ' ',
  'https://10.0.0.1\t',
  `https://${'a'.repeat(5_000)}`,
  `https://${'a.'.repeat(2_000)}10.0.0.1`,
];

/** Loopback, which the local server allows (on AWS these are refused too). */
const loopback = [
  'http://127.0.0.1:9',
  'https://2130706433',
  'https://0x7f000001',
  'https://0177.0.0.1',
  'https://127.1',
  'https://[::ffff:127.0.0.1]:9',
  'http://localhost.:9',
  'https://metadata.localhost',
  'http://s3.amazonaws.com.localhost',
];

export function hostileExportsFuzz(f: Fixtures): FuzzRequest[] {
  const configs = `/api/projects/${f.projectId}/plugin_configs/`;
  const auth = validAuth(f).headers;
  const settings = (endpoint: string) => ({ ...s3ExportSettings, s3BucketEndpoint: endpoint });
  const json = (method: string, path: string, body: unknown, label: string): FuzzRequest => ({
    method,
    path,
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    label,
  });
  return [...refused, ...loopback].flatMap((endpoint) => {
    const label = `s3BucketEndpoint ${JSON.stringify(endpoint.slice(0, 40))}`;
    const boundary = 'fuzzexports';
    const form = [
      `--${boundary}\r\nContent-Disposition: form-data; name="plugin"\r\n\r\n${s3ExportPluginId}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="enabled"\r\n\r\nfalse\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="config"\r\n\r\n${JSON.stringify(settings(endpoint))}\r\n`,
      `--${boundary}--\r\n`,
    ].join('');
    return [
      json(
        'POST',
        configs,
        { plugin: s3ExportPluginId, enabled: false, config: settings(endpoint) },
        `create, ${label}`,
      ),
      json(
        'PATCH',
        `${configs}${f.pluginConfigId}/`,
        { enabled: false, config: settings(endpoint) },
        `update, ${label}`,
      ),
      {
        method: 'POST',
        path: configs,
        headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: form,
        label: `create (form), ${label}`,
      },
    ];
  });
}
