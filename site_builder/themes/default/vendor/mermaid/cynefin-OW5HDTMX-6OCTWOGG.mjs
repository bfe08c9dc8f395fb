import{a as e,b as r}from"./chunk-JZGDI5JK.mjs";import"./chunk-ZS6VBONO.mjs";import"./chunk-AQ6EADP3.mjs";export{e as CynefinModule,r as createCynefinServices};
