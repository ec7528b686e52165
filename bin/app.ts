#!/usr/bin/env node
/** CDK entry (`cdk.json`): `npx cdk synth`, `npx cdk deploy --all`. */
import { App } from 'aws-cdk-lib';
import { buildApp } from '../lib/app';

buildApp(new App());
