import{a as r,b as e}from"./chunk-VQC2EELJ.mjs";import"./chunk-ZS6VBONO.mjs";import"./chunk-AQ6EADP3.mjs";export{r as RadarModule,e as createRadarServices};
